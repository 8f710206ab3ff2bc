/* A QEMU TCG plugin (user mode, plugin API version 1, QEMU 7.2) that counts
 * the AArch64 instructions a guest executes inside one address range (the
 * native module), by class, between marks the guest sets with a syscall.
 *
 *   qemu-aarch64 -plugin build/insn_count.so,out=FILE python3.11 script.py
 *
 * The guest marks phases with syscall(INSN_COUNT_SYSCALL, command, a, b):
 *   command 1: count instructions at addresses [a, b) from now on;
 *   command 2: start a phase (every count back to zero);
 *   command 3: end the phase named `a`: one line "a total ldst branch simd
 *              scalar" is appended to FILE;
 *   command 4: like 3, then one line "+ offset instructions" per block of
 *              the range the phase executed (offset: from address `b`, the
 *              module's load base), for a profile by function.
 * QEMU answers the unknown syscall with ENOSYS; nothing else happens.
 *
 * Every translated block keeps its start address, the count of each class
 * among its instructions and an execution counter that the generated code
 * increments inline (no callback per block): a phase's counts are the sums
 * of executions x class counts over the blocks that start in the range.
 * Blocks of the module translated before the range was set still count.
 *
 * Debian packages no qemu-plugin.h: the few declarations used here are
 * written from QEMU's documented plugin API (docs/devel/tcg-plugins). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdbool.h>

/* ---- the plugin API (version 1) ---------------------------------------- */
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t {
    const char *target_name;
    struct {
        int min;
        int cur;
    } version;
    bool system_emulation;
    union {
        struct {
            int smp_vcpus;
            int max_vcpus;
        } system;
    };
} qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_syscall_cb_t)(qemu_plugin_id_t id, unsigned int vcpu_index, int64_t num, uint64_t a1,
                                              uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6,
                                              uint64_t a7, uint64_t a8);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op, void *ptr,
                                              uint64_t imm);
void qemu_plugin_register_vcpu_syscall_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_syscall_cb_t cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

/* ---- counting ------------------------------------------------------------ */
enum { INSN_COUNT_SYSCALL = 0x7a5e, SET_RANGE = 1, START = 2, STOP = 3, STOP_PROFILE = 4 };
enum { LDST, BRANCH, SIMD, SCALAR, CLASSES };

/* The class of an A64 encoding (Arm ARM, "A64 instruction set encoding":
 * op0 = bits 28:25). */
static int class_of(uint32_t insn) {
    const uint32_t op0 = (insn >> 25) & 0xf;
    if ((op0 & 0x5) == 0x4) return LDST;                        /* x1x0: loads and stores */
    if ((op0 & 0x7) == 0x7) return SIMD;                        /* x111: SIMD and FP data processing */
    if ((op0 & 0xe) == 0xa) {                                   /* 101x: branches, exceptions, system */
        if ((insn & 0x7c000000u) == 0x14000000u) return BRANCH; /* B, BL */
        if ((insn & 0xff000010u) == 0x54000000u) return BRANCH; /* B.cond */
        if ((insn & 0x7e000000u) == 0x34000000u) return BRANCH; /* CBZ, CBNZ */
        if ((insn & 0x7e000000u) == 0x36000000u) return BRANCH; /* TBZ, TBNZ */
        if ((insn & 0xfe000000u) == 0xd6000000u) return BRANCH; /* BR, BLR, RET */
    }
    return SCALAR; /* integer data processing, system */
}

typedef struct block {
    uint64_t vaddr;
    uint64_t executions; /* incremented by the translated code */
    uint32_t count[CLASSES];
} block;

/* Blocks live in chunks that never move (the generated code holds their
 * addresses). */
enum { CHUNK = 4096 };
typedef struct chunk {
    block blocks[CHUNK];
    size_t used;
    struct chunk *next;
} chunk;

static chunk *chunks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t range_lo, range_hi;
static FILE *out;

static block *new_block(void) {
    pthread_mutex_lock(&lock);
    if (!chunks || chunks->used == CHUNK) {
        chunk *c = calloc(1, sizeof *c);
        if (!c) abort();
        c->next = chunks;
        chunks = c;
    }
    block *b = &chunks->blocks[chunks->used++];
    pthread_mutex_unlock(&lock);
    return b;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    block *b = new_block();
    b->vaddr = qemu_plugin_tb_vaddr(tb);
    const size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; ++i) {
        const struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint32_t word = 0;
        if (qemu_plugin_insn_size(insn) == 4) memcpy(&word, qemu_plugin_insn_data(insn), 4);
        ++b->count[class_of(word)];
    }
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->executions, 1);
}

static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t command, uint64_t a, uint64_t b,
                       uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8) {
    (void)id, (void)vcpu, (void)a4, (void)a5, (void)a6, (void)a7, (void)a8;
    if (num != INSN_COUNT_SYSCALL) return;
    pthread_mutex_lock(&lock);
    if (command == SET_RANGE) {
        range_lo = a;
        range_hi = b;
    } else if (command == START) {
        for (chunk *c = chunks; c; c = c->next)
            for (size_t k = 0; k < c->used; ++k) c->blocks[k].executions = 0;
    } else if ((command == STOP || command == STOP_PROFILE) && out) {
        uint64_t sum[CLASSES] = {0};
        for (chunk *c = chunks; c; c = c->next)
            for (size_t k = 0; k < c->used; ++k) {
                const block *x = &c->blocks[k];
                if (x->executions && x->vaddr >= range_lo && x->vaddr < range_hi)
                    for (int i = 0; i < CLASSES; ++i) sum[i] += x->executions * x->count[i];
            }
        fprintf(out, "%llu %llu %llu %llu %llu %llu\n", (unsigned long long)a,
                (unsigned long long)(sum[LDST] + sum[BRANCH] + sum[SIMD] + sum[SCALAR]), (unsigned long long)sum[LDST],
                (unsigned long long)sum[BRANCH], (unsigned long long)sum[SIMD], (unsigned long long)sum[SCALAR]);
        if (command == STOP_PROFILE)
            for (chunk *c = chunks; c; c = c->next)
                for (size_t k = 0; k < c->used; ++k) {
                    const block *x = &c->blocks[k];
                    if (x->executions && x->vaddr >= range_lo && x->vaddr < range_hi)
                        fprintf(out, "+ %llu %llu\n", (unsigned long long)(x->vaddr - b),
                                (unsigned long long)(x->executions * (x->count[LDST] + x->count[BRANCH] +
                                                                      x->count[SIMD] + x->count[SCALAR])));
                }
        fflush(out);
    }
    pthread_mutex_unlock(&lock);
}

static void on_exit_(qemu_plugin_id_t id, void *userdata) {
    (void)id, (void)userdata;
    if (out) fclose(out);
    out = NULL;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
    if (info->system_emulation) return -1; /* a user-mode tool */
    for (int i = 0; i < argc; ++i)
        if (strncmp(argv[i], "out=", 4) == 0) out = fopen(argv[i] + 4, "w");
    if (!out) {
        fprintf(stderr, "insn_count: give out=FILE\n");
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
    qemu_plugin_register_atexit_cb(id, on_exit_, NULL);
    return 0;
}
