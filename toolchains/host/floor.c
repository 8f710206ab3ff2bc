/* The x86-64 throughput floor behind docs/PERF.md's "what this machine
 * allows" section: how fast this CPU can issue the instructions that the
 * contract's arithmetic needs, with no memory traffic and no dependencies.
 * It times (a) single AVX-512 instructions, (b) the instruction mix of one
 * 64-element block of the Quant fast path (quant_avx512.c's operations,
 * counted from the contract: widen, one binary32 multiply and one
 * conversion per element, the saturating packs, the zero point, the
 * indefinite test, the order permute), (c) the fewest shuffles a register
 * transpose of bytes needs (log2(64) = 6 rounds of two-source shuffles:
 * 6 per 64 bytes) and (d) a table lookup by gather (the alternative to
 * arithmetic for 16-bit inputs), and (e) how fast reading alone goes by
 * the size read over and over (L2 and beyond).  The clock comes from a chain of
 * dependent adds (one per cycle), so cycles are this CPU's own, whatever
 * its frequency.  No code of the library runs here: these are bounds any
 * implementation of the same operations meets (the arithmetic ones, with
 * no memory traffic at all).
 *
 * Build and run: `make floor` (x86-64; the measurements need AVX-512
 * F/BW/VBMI and F16C, and are skipped with a message without them).  An
 * optional argument sets the iterations per loop (default 20 million). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../../csrc/common/isa.h" /* the avx512 route's feature list */

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define REP8(x) x x x x x x x x
#define CLOBBERS                                                                                                       \
    "xmm8", "xmm9", "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25", "xmm26", \
        "xmm27", "xmm28", "xmm29", "xmm30", "xmm31", "memory"

static long iterations = 20000000;

/* Seconds per loop iteration of `body` (the best of five runs). */
#define TIME_LOOP(result, body, ...)                                                     \
    do {                                                                                 \
        double best_ = 1e30;                                                             \
        for (int run_ = 0; run_ < 5; ++run_) {                                           \
            const double t_ = seconds();                                                 \
            for (long i_ = 0; i_ < iterations; ++i_) __asm__ volatile(body __VA_ARGS__); \
            const double e_ = (seconds() - t_) / (double)iterations;                     \
            if (e_ < best_) best_ = e_;                                                  \
        }                                                                                \
        (result) = best_;                                                                \
    } while (0)

/* Cycles per second: eight dependent one-cycle adds per iteration. */
static double clock_hz(void) {
    double t;
    long r = 0;
    TIME_LOOP(t, REP8("add $1, %0\n"), : "+r"(r));
    return 8.0 / t;
}

/* Four independent instructions of one kind (inputs zmm8/zmm9, outputs
 * zmm16-19), eight times per iteration.  Only non-destructive forms: an
 * instruction that also reads its destination (vpermi2b, vpermt2b) would
 * chain on it and time its latency instead. */
#define FOUR(op, a, b) op " " a ", %%zmm16\n" op " " b ", %%zmm17\n" op " " a ", %%zmm18\n" op " " b ", %%zmm19\n"

/* One 64-element Quant block without loads and stores: every operation of
 * quant_avx512.c's fast path, on independent registers. */
#define WIDEN_F16 \
    "vcvtph2ps %%ymm8, %%zmm16\n vcvtph2ps %%ymm9, %%zmm17\n vcvtph2ps %%ymm8, %%zmm18\n vcvtph2ps %%ymm9, %%zmm19\n"
#define WIDEN_BF16                                                                                                 \
    "vpslld $16, %%zmm8, %%zmm16\n vpandd %%zmm9, %%zmm8, %%zmm17\n vpslld $16, %%zmm9, %%zmm18\n vpandd %%zmm8, " \
    "%%zmm9, %%zmm19\n"
#define QUANT_REST                                                                                                    \
    "vmulps %%zmm8, %%zmm9, %%zmm20\n vmulps %%zmm8, %%zmm9, %%zmm21\n"                                               \
    "vmulps %%zmm8, %%zmm9, %%zmm22\n vmulps %%zmm8, %%zmm9, %%zmm23\n"                                               \
    "vcvtps2dq %%zmm9, %%zmm24\n vcvtps2dq %%zmm8, %%zmm25\n vcvtps2dq %%zmm9, %%zmm26\n vcvtps2dq %%zmm8, %%zmm27\n" \
    "vpackssdw %%zmm8, %%zmm9, %%zmm28\n vpackssdw %%zmm9, %%zmm8, %%zmm29\n"                                         \
    "vpminsw %%zmm8, %%zmm9, %%zmm30\n vpminsw %%zmm9, %%zmm8, %%zmm31\n"                                             \
    "vpaddsw %%zmm8, %%zmm9, %%zmm28\n vpaddsw %%zmm9, %%zmm8, %%zmm29\n"                                             \
    "vpacksswb %%zmm8, %%zmm9, %%zmm30\n vpermd %%zmm8, %%zmm9, %%zmm31\n"

/* The rounds of a 64 x 64 byte transpose for one 64-byte register: four
 * within 128-bit lanes (bytes, words, dwords, qwords), two across them. */
#define TRANSPOSE_BYTES64                                                        \
    "vpunpcklbw %%zmm8, %%zmm9, %%zmm16\n vpunpcklwd %%zmm9, %%zmm8, %%zmm17\n"  \
    "vpunpckldq %%zmm8, %%zmm9, %%zmm18\n vpunpcklqdq %%zmm9, %%zmm8, %%zmm19\n" \
    "vshufi64x2 $0x44, %%zmm8, %%zmm9, %%zmm16\n vshufi64x2 $0xee, %%zmm9, %%zmm8, %%zmm17\n"

/* Everything that touches 512-bit registers, only called once the CPU is
 * known to have them (the rest of the file is baseline x86-64). */
__attribute__((target(SK_ISA_AVX512(SK_ISA_TEXT_) "sse2"))) static void measure(double hz) {
    __asm__ volatile("vpxord %%zmm8, %%zmm8, %%zmm8\n vpxord %%zmm9, %%zmm9, %%zmm9" ::: "xmm8", "xmm9");

    printf("%-44s %s\n", "instruction (512-bit, independent)", "cycles each");
#define SINGLE(label, body)                           \
    do {                                              \
        double t_;                                    \
        TIME_LOOP(t_, REP8(body), ::: CLOBBERS);      \
        printf("%-44s %.2f\n", label, t_ *hz / 32.0); \
    } while (0)
    SINGLE("vmulps zmm", FOUR("vmulps", "%%zmm8, %%zmm9", "%%zmm9, %%zmm8"));
    SINGLE("vcvtps2dq zmm", FOUR("vcvtps2dq", "%%zmm8", "%%zmm9"));
    SINGLE("vcvtph2ps zmm <- ymm", FOUR("vcvtph2ps", "%%ymm8", "%%ymm9"));
    SINGLE("vpackssdw zmm", FOUR("vpackssdw", "%%zmm8, %%zmm9", "%%zmm9, %%zmm8"));
    SINGLE("vpunpcklbw zmm", FOUR("vpunpcklbw", "%%zmm8, %%zmm9", "%%zmm9, %%zmm8"));
    SINGLE("vshufi64x2 zmm", FOUR("vshufi64x2 $0x44,", "%%zmm8, %%zmm9", "%%zmm9, %%zmm8"));
    SINGLE("vpermb zmm", FOUR("vpermb", "%%zmm8, %%zmm9", "%%zmm9, %%zmm8"));
    SINGLE("vpslld zmm", FOUR("vpslld $16,", "%%zmm8", "%%zmm9"));
    SINGLE("vpaddsw zmm", FOUR("vpaddsw", "%%zmm8, %%zmm9", "%%zmm9, %%zmm8"));
    SINGLE("vpminsw zmm", FOUR("vpminsw", "%%zmm8, %%zmm9", "%%zmm9, %%zmm8"));
    SINGLE("vpandd zmm", FOUR("vpandd", "%%zmm8, %%zmm9", "%%zmm9, %%zmm8"));

    double fp32, bf16, fp16;
    TIME_LOOP(fp32, QUANT_REST QUANT_REST, ::: CLOBBERS);
    TIME_LOOP(bf16, WIDEN_BF16 QUANT_REST WIDEN_BF16 QUANT_REST, ::: CLOBBERS);
    TIME_LOOP(fp16, WIDEN_F16 QUANT_REST WIDEN_F16 QUANT_REST, ::: CLOBBERS);
    const double cyc_ns = 1e9 / hz;
    printf("\n%-44s %-12s %s\n", "Quant fast-path block, no memory (64 elements)", "cycles", "ns/elem");
    const struct {
        const char *name;
        double t;
    } blocks[] = {{"FP32 -> INT8 (16 operations)", fp32},
                  {"BF16 -> INT8 (20 operations)", bf16},
                  {"FP16 -> INT8 (20 operations)", fp16}};
    for (int i = 0; i < 3; ++i) {
        const double cycles = blocks[i].t * hz / 2.0;
        printf("%-44s %-12.2f %.4f\n", blocks[i].name, cycles, cycles * cyc_ns / 64.0);
    }

    /* The fewest shuffles of a 64 x 64 byte transpose in registers: 64
     * registers, each output draws on all 64 inputs, two sources per
     * shuffle: 6 rounds of 64, four of them within 128-bit lanes.  Alone,
     * and with the Quant block (a fused convert-and-transpose kernel for
     * 16-bit inputs, whose 1-byte outputs are the cheaper port to
     * transpose). */
    double transpose, bf16_t, fp16_t;
    TIME_LOOP(transpose, REP8(TRANSPOSE_BYTES64), ::: CLOBBERS);
    TIME_LOOP(bf16_t, WIDEN_BF16 QUANT_REST TRANSPOSE_BYTES64 WIDEN_BF16 QUANT_REST TRANSPOSE_BYTES64, ::: CLOBBERS);
    TIME_LOOP(fp16_t, WIDEN_F16 QUANT_REST TRANSPOSE_BYTES64 WIDEN_F16 QUANT_REST TRANSPOSE_BYTES64, ::: CLOBBERS);
    printf("\n%-44s %-12s %s\n", "64 x 64 byte transpose, fewest shuffles", "cycles/64", "ns/elem");
    const struct {
        const char *name;
        double cycles;
    } tr[] = {{"alone (6 per 64 bytes)", transpose * hz / 8.0},
              {"with the BF16 -> INT8 block", bf16_t * hz / 2.0},
              {"with the FP16 -> INT8 block", fp16_t * hz / 2.0}};
    for (int i = 0; i < 3; ++i) printf("%-44s %-12.2f %.4f\n", tr[i].name, tr[i].cycles, tr[i].cycles * cyc_ns / 64.0);

    /* A 64 KiB table (one entry per 16-bit input) by vpgatherdd, 16 lanes
     * a gather, from an L1/L2-resident table. */
    static unsigned char table[65536 + 4] __attribute__((aligned(64)));
    memset(table, 1, sizeof table);
    unsigned idx[16] __attribute__((aligned(64)));
    for (int i = 0; i < 16; ++i) idx[i] = (unsigned)(i * 4099u) & 0xffffu;
    __asm__ volatile("vmovdqa32 %0, %%zmm8" ::"m"(idx) : "xmm8");
    double gather;
    TIME_LOOP(gather,
              REP8("kxnorw %%k0, %%k0, %%k1\n vpgatherdd (%0, %%zmm8, 1), %%zmm16%{%%k1%}\n"
                   "kxnorw %%k0, %%k0, %%k2\n vpgatherdd (%0, %%zmm8, 1), %%zmm17%{%%k2%}\n"),
              ::"r"(table)
              : "k1", "k2", CLOBBERS);
    const double per16 = gather * hz / 16.0;
    printf("\n%-44s %-12s %s\n", "table lookup by gather", "cycles/16", "ns/elem");
    printf("%-44s %-12.2f %.4f\n", "vpgatherdd zmm, 64 KiB table", per16, per16 * cyc_ns / 16.0);

    /* Reading alone, by how much is read over and over: what a run whose
     * input lies beyond L2 (a stride-2 input reads every line of its
     * parent) can be fed at. */
    printf("\n%-44s %s\n", "read bandwidth (64-byte loads, in turn)", "GB/s");
    for (size_t kib = 256; kib <= 8192; kib *= 2) {
        const size_t bytes = kib << 10;
        char *buf = aligned_alloc(64, bytes);
        if (!buf) break;
        memset(buf, 1, bytes);
        const long reps = (long)((iterations * 16) / bytes) + 1;
        double best = 1e30;
        for (int run = 0; run < 5; ++run) {
            const double t = seconds();
            for (long r = 0; r < reps; ++r)
                for (size_t i = 0; i < bytes; i += 256)
                    __asm__ volatile(
                        "vpord (%0), %%zmm16, %%zmm16\n vpord 64(%0), %%zmm17, %%zmm17\n"
                        "vpord 128(%0), %%zmm18, %%zmm18\n vpord 192(%0), %%zmm19, %%zmm19\n" ::"r"(buf + i)
                        : "xmm16", "xmm17", "xmm18", "xmm19");
            const double e = (seconds() - t) / (double)reps;
            if (e < best) best = e;
        }
        char label[64];
        snprintf(label, sizeof label, "%zu KiB", kib);
        printf("%-44s %.1f\n", label, (double)bytes / best / 1e9);
        free(buf);
    }
}

int main(int argc, char **argv) {
    if (argc > 1) iterations = atol(argv[1]); /* fewer for a quick check */
    __builtin_cpu_init();
#define HAS(feature) &&__builtin_cpu_supports(#feature)
    if (!(1 SK_ISA_AVX512(HAS))) {
        puts("floor: this CPU lacks a feature of the avx512 route; nothing to measure");
        return 0;
    }
    char model[128] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
                snprintf(model, sizeof model, "%s", strchr(line, ':') + 2);
                model[strcspn(model, "\n")] = 0;
                break;
            }
        fclose(f);
    }
    const double hz = clock_hz();
    printf("%s; clock %.2f GHz (dependent adds)\n\n", model, hz / 1e9);
    measure(hz);
    return 0;
}
