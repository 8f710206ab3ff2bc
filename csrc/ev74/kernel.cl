/* simaai_kernels_ev74_quant_v1: the EV74 Quant kernel, OpenCL C.
 *
 * Two kernels, as the specification splits the work:
 *   simaai_kernels_ev74_quant_v1          the native entry (one work-item):
 *       validates the 224-byte descriptor by the shared rules (validate.h),
 *       checks both ranges lie in device memory, and writes the dispatcher
 *       control (control.h): the refusal record, or the selected entry, the
 *       prepared multiplier and the work geometry;
 *   simaai_kernels_ev74_quant_v1_workers  the execution, launched over the
 *       configured ring (one work-item per workgroup, each a vector core):
 *       workgroup w takes units [ceil(w U / N), ceil((w + 1) U / N)) of the
 *       U units, N the control's workgroups (unit 0 stays with workgroup 0;
 *       workgroups past N return at once), through one of 12 numerical
 *       entries (3 input formats x 4 rounding modes) selected once.
 * Device addresses are 32-bit; `memory` holds device memory from `base`.
 * The ping-pong slots are __local arguments (two input slots of 16 KiB,
 * two output slots of one DMA block: 40 KiB for FP32, 48 KiB for BF16 and
 * FP16), allocated per workgroup by the launch (sk_ev74_control_read
 * gives the sizes); they are not kernel-scope __local arrays, which pocl
 * 3.1 shares between concurrently running workgroups.
 * Only logical output elements are written.  Given a trace buffer, each
 * unit's record goes to trace[unit * SK_EV74_TRACE_WORDS]. */
#include "../include/simakernels.h"
#include "../quant/exact.h"
#include "validate.h"
#include "control.h"
#include "lanes.h"

__kernel void simaai_kernels_ev74_quant_v1(__global const uchar *descriptor, uint length, uint base, uint size,
                                           uint ring, __global sk_ev74_control *control) {
    if (get_global_id(0) != 0) return;
    uchar bytes[SK_EV74_DESCRIPTOR_SIZE];
    for (uint i = 0; i < SK_EV74_DESCRIPTOR_SIZE; ++i) bytes[i] = i < length ? descriptor[i] : 0;
    sk_ev74_descriptor d;
    sk_ev74_control c;
    for (int a = 0; a < SK_MAX_RANK; ++a) c.extent[a] = c.input_stride[a] = c.output_stride[a] = 0;
    c.entry = c.kind = c.units = c.run = c.block = c.units_per_run = c.outer_rank = 0;
    c.input_address = c.output_address = c.multiplier_bits = c.significand = c.exact_only = c.reserved = 0;
    c.exponent = c.zero_point = 0;
    c.workgroups = 1;
    if (sk_ev74_validate(bytes, length, &d, &c.why) == SK_OK &&
        sk_ev74_validate_memory(&d, base, size, &c.why) == SK_OK)
        sk_ev74_prepare(&d, ring, &c);
    *control = c;
}

/* ---- one element and one vector block ------------------------------------ */

/* The exact path of one element from its source bits (scalar tails and
 * scatter units): the bounded 64-bit product of quant/exact.h. */
static inline char sk_ev74_element(uint bits, const sk_ev74_control *c, const int input, const int mode) {
    const sk_q_decoded d = input == SK_QUANT_F32    ? sk_q_decode_f32(bits)
                           : input == SK_QUANT_BF16 ? sk_q_decode_bf16((ushort)bits)
                                                    : sk_q_decode_f16((ushort)bits);
    return (char)sk_q_exact(c->significand, c->exponent, c->zero_point, d, mode);
}

static inline char16 sk_ev74_vector(sk_u32x16 x, const sk_ev74_params *p, const int input, const int mode) {
    int exact;
    return convert_char16(sk_ev74_block(x, p, input, mode, &exact));
}

/* n packed elements from `space` memory: sk_ev74_global_run (a direct row,
 * a scatter element) and sk_ev74_local_run (a DMA block in its slots). */
#define SK_EV74_RUN(name, space)                                                                         \
    static inline void name(space const uchar *src, space char *dst, uint n, const sk_ev74_control *c,   \
                            const sk_ev74_params *p, const int input, const int mode) {                  \
        uint i = 0;                                                                                      \
        if (input == SK_QUANT_F32) {                                                                     \
            space const uint *s = (space const uint *)src;                                               \
            for (; i + SK_EV74_LANES <= n; i += SK_EV74_LANES)                                           \
                vstore16(sk_ev74_vector(vload16(0, s + i), p, input, mode), 0, dst + i);                 \
            for (; i < n; ++i) dst[i] = sk_ev74_element(s[i], c, input, mode);                           \
        } else {                                                                                         \
            space const ushort *s = (space const ushort *)src;                                           \
            for (; i + SK_EV74_LANES <= n; i += SK_EV74_LANES)                                           \
                vstore16(sk_ev74_vector(convert_uint16(vload16(0, s + i)), p, input, mode), 0, dst + i); \
            for (; i < n; ++i) dst[i] = sk_ev74_element(s[i], c, input, mode);                           \
        }                                                                                                \
    }
SK_EV74_RUN(sk_ev74_global_run, __global)
SK_EV74_RUN(sk_ev74_local_run, __local)

/* ---- the walk ---------------------------------------------------------- */

/* A worker's position: the outer coordinates (by carry after the start),
 * the unit's block within its row, and the row's first element addresses. */
typedef struct sk_ev74_cursor {
    uint coord[SK_MAX_RANK];
    uint block;
    uint input;
    uint output;
} sk_ev74_cursor;

/* The position of unit u: division only here, once per worker. */
static inline sk_ev74_cursor sk_ev74_seek(const sk_ev74_control *c, uint u) {
    sk_ev74_cursor at;
    uint row = u / c->units_per_run;
    at.block = u % c->units_per_run;
    at.input = c->input_address;
    at.output = c->output_address;
    for (int k = SK_MAX_RANK - 1; k >= 0; --k) {
        at.coord[k] = 0;
        if ((uint)k >= c->outer_rank) continue;
        at.coord[k] = row % c->extent[k];
        row /= c->extent[k];
        at.input += at.coord[k] * c->input_stride[k];
        at.output += at.coord[k] * c->output_stride[k];
    }
    return at;
}

static inline void sk_ev74_advance(const sk_ev74_control *c, sk_ev74_cursor *at) {
    if (++at->block < c->units_per_run) return;
    at->block = 0;
    for (int k = (int)c->outer_rank - 1; k >= 0; --k) { /* carry, fastest axis first */
        if (++at->coord[k] < c->extent[k]) {
            at->input += c->input_stride[k];
            at->output += c->output_stride[k];
            return;
        }
        at->coord[k] = 0;
        at->input -= c->input_stride[k] * (c->extent[k] - 1);
        at->output -= c->output_stride[k] * (c->extent[k] - 1);
    }
}

/* The unit at the cursor: first element addresses and count. */
static inline uint sk_ev74_unit(const sk_ev74_control *c, const sk_ev74_cursor *at, uint item, uint *src, uint *dst) {
    const uint start = at->block * c->block, rest = c->run - start;
    *src = at->input + start * item;
    *dst = at->output + start;
    return rest < c->block ? rest : c->block;
}

static inline void sk_ev74_record(__global uint *trace, uint u, uint cpu, uint kind, uint src, uint dst, uint n,
                                  int slot) {
    if (!trace) return;
    __global uint *t = trace + (size_t)u * SK_EV74_TRACE_WORDS;
    t[SK_EV74_TRACE_CPU] = cpu;
    t[SK_EV74_TRACE_KIND] = kind;
    t[SK_EV74_TRACE_INPUT] = src;
    t[SK_EV74_TRACE_OUTPUT] = dst;
    t[SK_EV74_TRACE_COUNT] = n;
    t[SK_EV74_TRACE_SLOT] = (uint)slot;
}

/* Input block into a local slot (typed by the input's element size). */
static inline event_t sk_ev74_fetch(__local uint *slot, __global const uchar *src, uint n, const int input) {
    if (input == SK_QUANT_F32) return async_work_group_copy(slot, (__global const uint *)src, n, 0);
    return async_work_group_copy((__local ushort *)slot, (__global const ushort *)src, n, 0);
}

/* A worker's units through one entry (input format and mode constant). */
static inline void sk_ev74_work(const sk_ev74_control *c, __global uchar *memory, uint base, __global uint *trace,
                                __local uint *in_slots, __local char *out_slots, const int input, const int mode) {
    const uint w = get_group_id(0), n = c->workgroups;
    const uint first = (uint)(((ulong)w * c->units + n - 1) / n);
    const uint end = (uint)(((ulong)(w + 1) * c->units + n - 1) / n);
    if (first >= end) return;
    const uint item = input == SK_QUANT_F32 ? 4 : 2;
    sk_ev74_params p;
    p.multiplier = sk_ev74_float_of(c->multiplier_bits);
    p.significand = c->significand;
    p.exponent = c->exponent;
    p.zero_point = c->zero_point;
    p.exact_only = (int)c->exact_only;
    sk_ev74_cursor at = sk_ev74_seek(c, first);
    uint src, dst;
    if (c->kind != SK_EV74_UNIT_DMA) {
        for (uint u = first; u < end; ++u) {
            const uint count = sk_ev74_unit(c, &at, item, &src, &dst);
            sk_ev74_record(trace, u, w, c->kind, src, dst, count, -1);
            sk_ev74_global_run(memory + (src - base), (__global char *)memory + (dst - base), count, c, &p, input,
                               mode);
            sk_ev74_advance(c, &at);
        }
        return;
    }
    /* DMA ping-pong: unit k uses slot k & 1; the next unit's input is in
     * flight while this one computes; an output slot is reused only after
     * its previous transfer, and both are waited for before returning. */
    const uint in_words = SK_EV74_INPUT_SLOT_BYTES / 4, out_bytes = c->block;
    event_t in_event[2], out_event[2];
    int out_busy[2] = {0, 0};
    uint count = sk_ev74_unit(c, &at, item, &src, &dst);
    in_event[0] = sk_ev74_fetch(in_slots, memory + (src - base), count, input);
    for (uint u = first, slot = 0; u < end; ++u, slot ^= 1u) {
        const uint this_count = count, this_dst = dst;
        sk_ev74_record(trace, u, w, SK_EV74_UNIT_DMA, src, dst, count, (int)slot);
        if (u + 1 < end) {
            sk_ev74_advance(c, &at);
            count = sk_ev74_unit(c, &at, item, &src, &dst);
            in_event[slot ^ 1u] = sk_ev74_fetch(in_slots + (slot ^ 1u) * in_words, memory + (src - base), count, input);
        }
        wait_group_events(1, &in_event[slot]);
        if (out_busy[slot]) wait_group_events(1, &out_event[slot]);
        __local char *out = out_slots + slot * out_bytes;
        sk_ev74_local_run((__local const uchar *)(in_slots + slot * in_words), out, this_count, c, &p, input, mode);
        out_event[slot] = async_work_group_copy((__global char *)memory + (this_dst - base), out, this_count, 0);
        out_busy[slot] = 1;
    }
    for (int s = 0; s < 2; ++s)
        if (out_busy[s]) wait_group_events(1, &out_event[s]);
}

/* The 12 entries, each the walk specialised for its format and mode. */
#define SK_EV74_ENTRY(name, input, mode)                                                                      \
    static void sk_ev74_quant_##name(const sk_ev74_control *c, __global uchar *memory, uint base,             \
                                     __global uint *trace, __local uint *in_slots, __local char *out_slots) { \
        sk_ev74_work(c, memory, base, trace, in_slots, out_slots, input, mode);                               \
    }
#define SK_EV74_ENTRIES(X)                              \
    X(f32_ne, SK_QUANT_F32, SK_QUANT_NEAREST_EVEN)      \
    X(f32_tz, SK_QUANT_F32, SK_QUANT_TOWARD_ZERO)       \
    X(f32_tp, SK_QUANT_F32, SK_QUANT_TOWARD_POSITIVE)   \
    X(f32_tn, SK_QUANT_F32, SK_QUANT_TOWARD_NEGATIVE)   \
    X(bf16_ne, SK_QUANT_BF16, SK_QUANT_NEAREST_EVEN)    \
    X(bf16_tz, SK_QUANT_BF16, SK_QUANT_TOWARD_ZERO)     \
    X(bf16_tp, SK_QUANT_BF16, SK_QUANT_TOWARD_POSITIVE) \
    X(bf16_tn, SK_QUANT_BF16, SK_QUANT_TOWARD_NEGATIVE) \
    X(f16_ne, SK_QUANT_F16, SK_QUANT_NEAREST_EVEN)      \
    X(f16_tz, SK_QUANT_F16, SK_QUANT_TOWARD_ZERO)       \
    X(f16_tp, SK_QUANT_F16, SK_QUANT_TOWARD_POSITIVE)   \
    X(f16_tn, SK_QUANT_F16, SK_QUANT_TOWARD_NEGATIVE)
SK_EV74_ENTRIES(SK_EV74_ENTRY)

#define SK_EV74_CASE(name, input, mode)                                     \
    case input * 4 + mode:                                                  \
        sk_ev74_quant_##name(&c, memory, base, trace, in_slots, out_slots); \
        break;

__kernel void simaai_kernels_ev74_quant_v1_workers(__global const sk_ev74_control *control, __global uchar *memory,
                                                   uint base, __global uint *trace, __local uint *in_slots,
                                                   __local char *out_slots) {
    const sk_ev74_control c = *control;
    if (c.why.status != SK_OK || get_group_id(0) >= c.workgroups || get_local_id(0) != 0) return;
    switch (c.entry) { SK_EV74_ENTRIES(SK_EV74_CASE) }
}
