/* The only header cffi sees.  The builder drops the preprocessor lines below
 * before handing the rest to ffi.cdef, so everything else must be plain C
 * declarations (or one-line inline functions, which cffi takes as their
 * prototypes): no macros, no conditional compilation.  The EV74 kernel's
 * OpenCL C program includes it too (its enums, the rule and descriptor
 * records), so nothing here may need more than the fixed-width types. */
#ifndef SIMAKERNELS_H
#define SIMAKERNELS_H
#ifdef __OPENCL_C_VERSION__
typedef uchar uint8_t;
typedef ushort uint16_t;
typedef short int16_t;
typedef uint uint32_t;
typedef int int32_t;
typedef ulong uint64_t;
typedef long int64_t;
typedef char int8_t;
#define INT64_MAX LONG_MAX
#else
#include <stddef.h>
#include <stdint.h>
#endif

/* Status codes; the values are mirrored by simakernels.core.ErrorCode. */
enum sk_status {
    SK_OK = 0,
    SK_INVALID_OPERATION = 1,
    SK_INVALID_ARITY = 2,
    SK_UNSUPPORTED_DTYPE = 3,
    SK_INVALID_SHAPE = 4,
    SK_UNSUPPORTED_LAYOUT = 5,
    SK_INVALID_PARAMS = 6,
    SK_OVERFLOW = 7,
    SK_INVALID_BINDING = 8,
    SK_UNSUPPORTED_ENVIRONMENT = 9,
    SK_DEVICE_LIMIT = 10,
    SK_PACKET_MISMATCH = 11,
    SK_INVALID_DESCRIPTOR = 12
};

/* Build identity: the package version and a digest of the C sources, both
 * compiled in so that Python can refuse a stale build. */
const char *sk_version(void);
const char *sk_source_digest(void);
const char *sk_build_flags(void);
const char *sk_compiler(void);

/* Numerical routes, best first.  Every operation has an entry for each
 * compiled route: "neon" (AArch64 intrinsics), "avx512", "avx2" and "sse2"
 * (x86-64: portable C written for the vectoriser, compiled for each
 * instruction set, intrinsics where that is not enough; avx512 and avx2
 * only where the CPU and OS have them; where avx512 runs avx2 code, the
 * kernel registry names the avx2 leaf and sk_route_borrows says whose
 * staging it runs) and "scalar" (element-at-a-time reference loops, every
 * target). */
enum sk_route {
    SK_ROUTE_NEON = 0,
    SK_ROUTE_AVX512 = 1,
    SK_ROUTE_AVX2 = 2,
    SK_ROUTE_SSE2 = 3,
    SK_ROUTE_SCALAR = 4,
    SK_ROUTE_COUNT = 5
};
const char *sk_route_name(int route);
int sk_route_compiled(int route);
int sk_route_available(int route);
/* The instruction-set features a route's code is compiled for and asks the
 * CPU for, space-separated ("avx2 f16c"; "" for scalar). */
const char *sk_route_features(int route);
/* The route whose staging (and, where the kernel registry names its
 * leaves, code) a route runs: itself unless it borrows. */
int sk_route_borrows(int route);

/* Operations (registry rows, FP-environment needs). */
enum sk_operation {
    SK_OP_CAST = 0,
    SK_OP_DEQUANT = 1,
    SK_OP_QUANT = 2,
    SK_OP_HURRAY = 3, /* no kernel table */
    SK_OP_RANGE = 4,  /* the range pass of choose_qparams */
    SK_OP_AFFINE_QUANT = 5,
    SK_OP_AFFINE_DEQUANT = 6
};

/* The kernel registry: one row per leaf function the module holds, as each
 * operation's registry file lists it.  `variant` is the operation's table
 * index (Cast enum sk_cast_kind, Dequant sk_dequant_variant, Quant and
 * affine quant sk_quant_variant, Range the input dtype, affine dequant
 * sk_affine_dequant_variant), `block` the elements per
 * vector block (1: element at a time), `symbol` the function's name.  Tests
 * and benchmarks read variant lists and block edges from it. */
enum sk_leaf_kind {
    SK_LEAF_SPAN = 0,
    SK_LEAF_STRIDED = 1,
    SK_LEAF_EVERY_OTHER = 2,
    SK_LEAF_TILE = 3,
    SK_LEAF_PERIODIC = 4,
    SK_LEAF_RUNS = 5,
    SK_LEAF_FOLD = 6,
    SK_LEAF_FOLD_PERIODIC = 7,
    SK_LEAF_PACKED = 8,
    SK_LEAF_ROWS = 9
};
typedef struct sk_leaf_info {
    const char *symbol;
    int32_t operation, route, variant, kind, block;
} sk_leaf_info;
/* Rows 0 .. sk_leaf_count() - 1; NULL past the end. */
size_t sk_leaf_count(void);
const sk_leaf_info *sk_leaf_at(size_t index);

/* ---- FP environment ---------------------------------------------------- */
enum sk_fenv_rounding { SK_ROUND_NEAREST = 0, SK_ROUND_TOWARD_ZERO = 1, SK_ROUND_UPWARD = 2, SK_ROUND_DOWNWARD = 3 };
enum sk_fenv_trap {
    SK_TRAP_INVALID = 1,
    SK_TRAP_DIVIDE_BY_ZERO = 2,
    SK_TRAP_OVERFLOW = 4,
    SK_TRAP_UNDERFLOW = 8,
    SK_TRAP_INEXACT = 16,
    SK_TRAP_INPUT_DENORMAL = 32
};
typedef struct sk_fenv_state {
    int32_t rounding;           /* enum sk_fenv_rounding */
    int32_t flush_to_zero;      /* results flushed (x86 FTZ, AArch64 FZ) */
    int32_t denormals_are_zero; /* inputs flushed (x86 DAZ, AArch64 FZ) */
    uint32_t traps;             /* enabled traps, enum sk_fenv_trap bits */
} sk_fenv_state;

/* What an operation needs from the calling thread's FP state. */
enum sk_fenv_need { SK_NEED_NEAREST = 1, SK_NEED_GRADUAL_UNDERFLOW = 2, SK_NEED_NO_TRAPS = 4 };

/* What each operation needs (enum sk_operation -> sk_fenv_need bits): Cast
 * is bit manipulation (nothing); Dequant and Hurray dequantization compute
 * in binary32 (nearest, gradual underflow, no traps), and so does affine
 * dequant; Quant and affine quant are exact under flush modes (their
 * repair path) and need nearest and no traps.  The
 * executes check exactly these; Python reads them for its messages. */
int sk_operation_fenv_needs(int operation);

void sk_fenv_query(sk_fenv_state *state);
/* 0 when the state satisfies every bit of `needs`, else the unmet bits. */
int sk_fenv_unmet(int needs);

/* Test support: opaque save/restore of the whole FP environment, and a
 * setter.  sk_fenv_set returns 0, or -1 when this CPU cannot represent the
 * requested state (e.g. traps that read back as disabled). */
typedef struct sk_fenv_saved {
    uint64_t opaque[64];
} sk_fenv_saved;
int sk_fenv_save(sk_fenv_saved *saved);
int sk_fenv_restore(const sk_fenv_saved *saved);
int sk_fenv_set(const sk_fenv_state *state);
/* Saves the whole environment, then sets the state threads start in
 * (nearest, gradual underflow, every trap masked): the Python layer formats
 * numbers and imports nothing under the caller's state.  0, or -1 where the
 * state cannot be set; sk_fenv_restore(saved) undoes it either way. */
int sk_fenv_enter_default(sk_fenv_saved *saved);

/* ---- Streaming stores --------------------------------------------------- */
/* Output bytes of one dense run from which leaves use non-temporal stores
 * (csrc/common/stream.h). */
size_t sk_stream_min_bytes(void);

/* Tensors have rank 0..SK_MAX_RANK (the arrays of six below). */
enum sk_limits { SK_MAX_RANK = 6 };

/* ---- Shared strided traversal ----------------------------------------- */
/* A prepared walk over two ports with the same logical shape: `runs` inner
 * runs of `run_length` elements each, elements `in_step`/`out_step` bytes
 * apart; the outer axes (fastest first) advance both ports by carry.
 * Elements are `in_size`/`out_size` bytes. */
/* A transpose: two axes, the input packed along `x`, the output along `l`
 * (bytes: the input's step along l, the output's along x). */
typedef struct sk_tile_axes {
    int64_t l_extent, l_in;
    int64_t x_extent, x_out;
} sk_tile_axes;

typedef struct sk_walk {
    int64_t runs;
    int64_t run_length;
    int64_t in_step;
    int64_t out_step;
    int32_t outer_rank;
    int32_t dense; /* both runs are packed scalars */
    int32_t in_size;
    int32_t out_size;
    /* Per-axis plans: the walk axis that holds the channel axis; -1: none
     * (per tensor, or one channel), outer_rank: the inner run (channels
     * then repeat along it with period `channels`), else an outer axis
     * (fastest first; its index modulo `channels` is the run's channel). */
    int32_t channel;
    /* Blocked plans (sk_walk_prepare_blocked): the walk axis that holds the
     * block axis, numbered as `channel`; -1 when the block axis has extent
     * 1 (or the plan is not blocked). */
    int32_t block_at;
    int64_t channels; /* per-axis: the channel count; blocked: the entries (prod of the parameter shape) */
    int64_t extent[6];
    int64_t in_stride[6];
    int64_t out_stride[6];
    /* Blocked plans: B, the block size (0: not blocked), and per walk axis
     * ([0, outer_rank) the outer axes fastest first, [outer_rank] the inner
     * run) its step in entries, per index step (the block axis: per block),
     * in the walk-ordered parameter table (C-contiguous with the inner run
     * fastest: param_step[outer_rank] is 1) and in the caller's parameter
     * array (C order of the parameter shape).  A run's first entry is the
     * sum over the outer axes of index (index / block on the block axis)
     * times param_step. */
    int64_t block;
    int64_t param_step[6];
    int64_t param_source[6];
    /* How execute runs it, decided once by the operation's prepare
     * (sk_walk_decide, internal): the kind of every run, whose staging
     * moves the non-packed ones (enum sk_route), whether tiled planes go
     * through ordered tiles (a walk beyond the cache) and stream their
     * output lines, and the transpose's axes. */
    int32_t decided;
    int32_t run_kind;
    int32_t staging;
    int32_t ordered;
    int32_t stream;
    int32_t reserved2;
    sk_tile_axes tiles;
} sk_walk;

/* Builds a walk from a nonempty admitted shape (rank 0..6, byte strides).
 * `channel_axis` (-1: none) is the logical axis of per-axis parameters: the
 * walk never merges it into a faster axis, so every run either keeps one
 * channel or walks the channels in order.  Returns SK_OK or
 * SK_INVALID_SHAPE for arguments out of contract. */
int sk_walk_prepare(int rank, const int64_t *extent, const int64_t *in_stride, const int64_t *out_stride,
                    int64_t in_size, int64_t out_size, int channel_axis, sk_walk *walk);

/* The same for blocked parameters: `axis` (0..rank-1) is the block axis,
 * `block` >= 1 its block size; the parameter shape is the shape with
 * ceil(extent[axis] / block) along the axis, its entries numbered in C
 * order (the caller's order).  The block axis is never merged with another
 * axis, and two other axes merge only if their steps in the caller's
 * parameter array chain too, so that every walk axis steps the entries by
 * one param_source.  walk->channel is -1; walk->channels the entry count. */
int sk_walk_prepare_blocked(int rank, const int64_t *extent, const int64_t *in_stride, const int64_t *out_stride,
                            int64_t in_size, int64_t out_size, int axis, int64_t block, sk_walk *walk);

/* A blocked walk's parameter orders: copies `size`-byte records from the
 * caller's order (C order of the parameter shape) to the walk's table
 * order (gather), or back (scatter); walk->channels records each. */
void sk_walk_params_gather(const sk_walk *walk, const void *caller, void *ordered, size_t size);
void sk_walk_params_scatter(const sk_walk *walk, const void *ordered, void *caller, size_t size);

/* ---- Layout and binding rules ------------------------------------------ */
/* One checker serves every entry: execute (bindings), the EV74 decoder
 * (descriptor geometry and addresses) and, through cffi, Python's admission
 * and binding, which only turn its fault record into a message. */
enum sk_rule {
    SK_RULE_NONE = 0,
    /* layouts (sk_layout_check): status SK_UNSUPPORTED_LAYOUT unless noted;
     * a limit's status is SK_OVERFLOW on the host, SK_DEVICE_LIMIT on the EV74 */
    SK_RULE_EXTENT_LIMIT = 14,   /* an extent beyond the domain; value: the extent, limit: the largest */
    SK_RULE_NEGATIVE_STRIDE = 1, /* value: the stride */
    SK_RULE_STRIDE_MULTIPLE = 2, /* value: the stride; limit: the element size */
    SK_RULE_NOT_NORMALISED = 3,  /* descriptor form: a singleton axis or an empty tensor with a nonzero stride */
    SK_RULE_BROADCAST = 4,       /* zero stride on an axis of extent > 1; value: the extent */
    SK_RULE_STRIDE_LIMIT = 5,    /* stride beyond the domain; value: stride, limit: the largest */
    SK_RULE_SPAN_LIMIT = 6,      /* the accessed span passes the limit at this axis;
                                   * value: the span of the axes before it, limit: the largest span */
    SK_RULE_AXES_OVERLAP = 7,    /* the sorted-axis nonoverlap proof fails; value: the stride,
                                   * limit: the bytes spanned by the faster axes */
    /* bindings (sk_binding_fault): status SK_INVALID_BINDING unless noted */
    SK_RULE_VIEW_LIMIT = 8,     /* SK_OVERFLOW: a view longer than 2^63-1 bytes; value: its length */
    SK_RULE_NULL = 9,           /* null view for nonempty work; limit: the bytes required */
    SK_RULE_SHORT = 10,         /* value: the view's bytes; limit: the bytes required */
    SK_RULE_ADDRESS_LIMIT = 11, /* SK_OVERFLOW (SK_DEVICE_LIMIT): the view ends past the address domain; value: the
                                   * address, limit: the largest end (one past its last byte) */
    SK_RULE_MISALIGNED = 12,    /* value: the address; limit: the alignment */
    SK_RULE_PORTS_OVERLAP = 13, /* the accessed input and output ranges overlap (port 1) */
    /* parameters (sk_params_check): status SK_INVALID_PARAMS, port and axis -1 */
    SK_RULE_NOT_FINITE_POSITIVE = 15, /* a scale or multiplier not a finite binary32 > 0; value: its bits */
    SK_RULE_ZERO_POINT_RANGE = 16,    /* value: the zero point (two's complement), limit: the range's end it passes */
    SK_RULE_NOT_FINITE_NONZERO = 17   /* an affine dequant scale not a finite nonzero binary32; value: its bits */
};

/* The first rule a layout, binding or parameters break: SK_OK and
 * SK_RULE_NONE when none.  `port`: 0 input, 1 output; `axis`: -1 for the
 * port as a whole. */
typedef struct sk_fault {
    int32_t status; /* enum sk_status */
    int32_t rule;   /* enum sk_rule */
    int32_t port;
    int32_t axis;
    uint64_t value;
    uint64_t limit;
} sk_fault;

/* Largest accessed span and largest view end of the host (signed 64-bit
 * addresses) and of the EV74's 32-bit device domain. */
enum sk_domain { SK_DOMAIN_HOST = 0, SK_DOMAIN_DEVICE = 1 };

/* The largest view end (one past the last byte) in a domain: 2^63-1 on the
 * host, 2^32 on the EV74. */
uint64_t sk_domain_end(int domain);

/* One port's geometry: byte strides in logical axis order. */
typedef struct sk_layout {
    int32_t rank; /* 0..6 */
    int32_t port;
    int32_t domain;     /* enum sk_domain */
    int32_t normalised; /* descriptor form: singleton axes and empty tensors carry zero strides */
    int64_t item;       /* element bytes */
    uint64_t extent[6];
    int64_t stride[6];
} sk_layout;

/* Checks a port's geometry, in this order: every axis (extent beyond the
 * domain, negative stride, not a multiple of the element, not normalised, broadcast, beyond the domain),
 * then the accessed span, then the conservative sorted-axis nonoverlap
 * proof (with active axes ordered by stride, each stride clears the whole
 * span of the faster axes: admits permutations, padded rows and stepped
 * views).  Returns the fault's status; *span is the accessed bytes (0 for
 * an empty tensor). */
int sk_layout_check(const sk_layout *layout, uint64_t *span, sk_fault *fault);

/* What an admitted plan needs from its two views (bytes, address alignment;
 * 0 bytes: empty work, any view will do). */
typedef struct sk_binding {
    uint64_t in_nbytes;
    uint64_t in_alignment;
    uint64_t out_nbytes;
    uint64_t out_alignment;
} sk_binding;

/* Checks two views against a binding, each port in this order: length (at
 * most 2^63-1), then for nonempty work null, short, the view's end within
 * the domain, alignment; then overlap of the accessed ranges.  Returns the
 * fault's status.  Every entry that takes pointers runs it first. */
int sk_binding_fault(const sk_binding *need, int domain, uint64_t src, uint64_t src_len, uint64_t dst, uint64_t dst_len,
                     sk_fault *fault);

/* ---- Parameter rules ---------------------------------------------------- */
/* Dequant's scale and Quant's multiplier are finite binary32 values > 0
 * (subnormals included), judged by their bits; zero points lie in the
 * operation's range: Quant's is the INT8 levels it saturates to, Dequant's
 * INT32.  One checker serves prepare, the EV74 decoder and Python's
 * admission, which only words its fault record. */
enum sk_zero_point_range {
    SK_QUANT_ZERO_POINT_LEAST = -128,
    SK_QUANT_ZERO_POINT_GREATEST = 127,
    SK_DEQUANT_ZERO_POINT_LEAST = -2147483648,
    SK_DEQUANT_ZERO_POINT_GREATEST = 2147483647
};

/* Checks the parameters of `operation` (SK_OP_DEQUANT or SK_OP_QUANT,
 * else SK_INVALID_OPERATION): the `bits_count` scale or multiplier bits,
 * then the `zero_points_count` zero points, each in index order.  Returns
 * the fault's status; *at is the index of the entry at fault (0 if none). */
int sk_params_check(int operation, const uint32_t *bits, uint64_t bits_count, const int64_t *zero_points,
                    uint64_t zero_points_count, uint64_t *at, sk_fault *fault);

/* ---- Cast ------------------------------------------------------------- */
enum sk_cast_kind { SK_CAST_F32_BF16 = 0, SK_CAST_BF16_F32 = 1 };
typedef struct sk_cast_plan {
    int32_t kind;  /* enum sk_cast_kind */
    int32_t route; /* enum sk_route, compiled and available */
    sk_binding binding;
    sk_walk walk;
} sk_cast_plan;

/* Decides how the walk runs (after sk_walk_prepare); SK_INVALID_OPERATION
 * for an unknown kind or a route this build did not compile. */
int sk_cast_prepare(sk_cast_plan *plan);
/* Binding check, then the conversion; src/dst views of src_len/dst_len bytes.
 * SK_INVALID_OPERATION for a plan sk_cast_prepare did not decide. */
int sk_cast_execute(const sk_cast_plan *plan, const void *src, uint64_t src_len, void *dst, uint64_t dst_len);

/* ---- Per-axis parameters ------------------------------------------------ */
/* Dequant and Quant plans take one parameter set per index along one axis
 * (the channel axis) instead of one per tensor.  The caller gives each
 * channel's scale or multiplier bits and zero point, and a workspace of
 * sk_dequant_axis_space / sk_quant_axis_space(plan) bytes, 16-byte
 * aligned, which prepare fills with everything executes read (per-channel
 * contexts and kernel entries, and the repeating parameter tables of the
 * leaves that take parameter vectors).  Prepare such a plan after its walk
 * (sk_walk_prepare with the channel axis).  The plan reads the arrays only
 * in prepare and the workspace for as long as it is used; it frees
 * nothing. */
typedef struct sk_axis {
    int32_t axis; /* the channel axis of the plan's shape; blocked: the block axis */
    int32_t reserved;
    int64_t count; /* channels, the axis's extent; 0: per tensor (the plan's scalars); blocked: the entries */
    /* 0: per-axis; >= 1: blocked parameters, blocks of this many elements
     * along `axis`; the plan's walk is then sk_walk_prepare_blocked's with
     * the same axis and block, and bits and zero_points hold one entry per
     * parameter-shape index in C order. */
    int64_t block;
    const uint32_t *bits;       /* count scale (Dequant) or multiplier (Quant) bits */
    const int32_t *zero_points; /* count zero points */
    void *space;
    uint64_t space_bytes;
} sk_axis;

/* ---- Dequant ---------------------------------------------------------- */
enum sk_dequant_output { SK_DEQUANT_F32 = 0, SK_DEQUANT_BF16 = 1 };
/* Arithmetic forms, chosen by sk_dequant_prepare from the zero-point range
 * and the scale's representation bits (no FP arithmetic).  Every form gives
 * the bits of the staged expression ((float)q - (float)zp) * scale. */
enum sk_dequant_form {
    SK_DEQUANT_NARROW = 0,      /* zp in INT8 range: exact integer difference, convert, multiply */
    SK_DEQUANT_NARROW_POW2 = 1, /* zp in INT8 range, scale 2^e, -4 <= e <= 4: exact scaled conversion */
    SK_DEQUANT_WIDE_POW2 = 2,   /* zp in [-16777089, 16777088], scale 2^e, -4 <= e <= 4 */
    SK_DEQUANT_WIDE_UNIT = 3,   /* other zp, scale 1: staged conversion and subtraction */
    SK_DEQUANT_WIDE = 4,        /* other zp: staged conversion, subtraction, multiplication */
    SK_DEQUANT_FORM_COUNT = 5
};
/* The kernel table's variants, an output and a form each: sk_dequant_variant
 * is the index (the registry's sk_leaf_info.variant). */
enum { SK_DEQUANT_VARIANTS = 2 * SK_DEQUANT_FORM_COUNT };
int sk_dequant_variant(int output, int form);
typedef struct sk_dequant_plan {
    int32_t output;      /* enum sk_dequant_output */
    int32_t route;       /* enum sk_route */
    uint32_t scale_bits; /* admitted: finite, > 0 */
    int32_t zero_point;
    /* Set by sk_dequant_prepare (the binary32 values in the default FP
     * state, whatever the caller's): */
    int32_t form;     /* enum sk_dequant_form */
    int32_t exponent; /* e of a power-of-two scale (pow2 forms) */
    int32_t variant;  /* the kernel table's entry the route runs */
    float zp;         /* (float)zero_point, nearest-even */
    float zp_scaled;  /* zp * scale for the WIDE_POW2 form, else 0 */
    /* avx512 route, BF16 output: the result of each of the 256 INT8 inputs
     * (index: the input byte) by the scalar expression, as its low bytes [0]
     * and high bytes [1]; other plans leave them zero. */
    uint8_t bf16_table[2][256];
    sk_axis axis; /* per-axis parameters (axis.count > 0) */
    sk_binding binding;
    sk_walk walk;
} sk_dequant_plan;

/* Workspace bytes of a per-axis Dequant plan: its route, output and
 * axis.count set (0 for a count out of range). */
uint64_t sk_dequant_axis_space(const sk_dequant_plan *plan);

/* Chooses the form and the kernel entry and computes what executions copy;
 * SK_INVALID_PARAMS for a scale that is not finite and positive,
 * SK_INVALID_OPERATION for an unknown output or route.  A
 * per-axis plan (axis.count > 0) checks every channel's scale likewise
 * (its scalars are then unused) and a workspace that is null, short or
 * misaligned is SK_INVALID_OPERATION; it fills the workspace in the
 * default FP state, whatever the caller's. */
int sk_dequant_prepare(sk_dequant_plan *plan);
/* Binding check; then, for nonempty work, the FP environment (nearest,
 * gradual underflow, no traps) before any conversion or write:
 * SK_UNSUPPORTED_ENVIRONMENT otherwise. */
int sk_dequant_execute(const sk_dequant_plan *plan, const void *src, uint64_t src_len, void *dst, uint64_t dst_len);

/* ---- Quant ------------------------------------------------------------ */
enum sk_quant_input { SK_QUANT_F32 = 0, SK_QUANT_BF16 = 1, SK_QUANT_F16 = 2 };
enum sk_quant_rounding {
    SK_QUANT_NEAREST_EVEN = 0,
    SK_QUANT_TOWARD_ZERO = 1,
    SK_QUANT_TOWARD_POSITIVE = 2,
    SK_QUANT_TOWARD_NEGATIVE = 3
};
/* Quant's kernel-table index of an input and a rounding mode (the variant
 * of its registry rows), and how many there are. */
enum { SK_QUANT_VARIANTS = 12 };
static inline int32_t sk_quant_variant(int32_t input, int32_t rounding) { return input * 4 + rounding; }
/* What the leaves read, prepared from one multiplier and zero point for
 * one state of the control register (flushing or not). */
typedef struct sk_quant_ctx {
    float multiplier;
    uint32_t multiplier_bits;
    uint64_t msig; /* multiplier = msig * 2^mexp, msig odd */
    int32_t mexp;
    int32_t zero_point;
    int32_t exact_only;       /* subnormal multiplier: every block takes the exact path */
    int32_t flushes;          /* the control register flushes: the vector leaves test blocks for the exact path */
    uint32_t fast_min;        /* x86, when flushing: the least input magnitude bits the vector path keeps exact */
    uint64_t stream_elements; /* a per-axis plan's whole walk (streaming decided for it), else 0 */
} sk_quant_ctx;
typedef struct sk_quant_plan {
    int32_t input;            /* enum sk_quant_input */
    int32_t rounding;         /* enum sk_quant_rounding */
    int32_t route;            /* enum sk_route */
    uint32_t multiplier_bits; /* admitted: finite, > 0 */
    int32_t zero_point;       /* admitted: SK_QUANT_ZERO_POINT_LEAST..GREATEST */
    int32_t prepared;         /* set by sk_quant_prepare, with ctx */
    sk_quant_ctx ctx[2];      /* per tensor: for a control register that flushes ([1]) or not ([0]) */
    sk_axis axis;             /* per-axis parameters (axis.count > 0) */
    sk_binding binding;
    sk_walk walk;
} sk_quant_plan;

/* Workspace bytes of a per-axis Quant plan: its axis.count set (0 for a
 * count out of range). */
uint64_t sk_quant_axis_space(const sk_quant_plan *plan);

/* Validates the plan's codes and parameters (SK_INVALID_PARAMS /
 * SK_INVALID_OPERATION), so a bad plan is refused before execution, and
 * decodes the multiplier once for every execution.  A per-axis plan
 * (axis.count > 0) checks and decodes every channel's parameters into its
 * workspace (null, short or misaligned: SK_INVALID_OPERATION). */
int sk_quant_prepare(sk_quant_plan *plan);
/* SK_INVALID_OPERATION for a plan sk_quant_prepare did not accept; the
 * binding check; then, for nonempty work, the FP environment (nearest
 * rounding, no traps; flush modes are fine: the exact repair path covers
 * them) before any write. */
int sk_quant_execute(const sk_quant_plan *plan, const void *src, uint64_t src_len, void *dst, uint64_t dst_len);

/* ---- Range pass of choose_qparams ------------------------------------------- */
/* Per tensor (channel_axis -1) or per channel of `channel_axis`: the least
 * and greatest finite value of a FLOAT32, BFLOAT16 or FLOAT16 tensor
 * (`input`: enum sk_quant_input), 0 always included, NaN and infinities
 * left out, as sign-magnitude keys of the representation bits (+magnitude
 * for sign 0, -magnitude for sign 1, magnitude: the bits without the sign).
 * Integer operations only: the FP environment plays no part.  `layout`
 * (rank, item, extent, stride; port and domain ignored) passes the layout
 * rules (sk_layout_check: SK_UNSUPPORTED_LAYOUT or SK_OVERFLOW otherwise);
 * `src` is bound like an execute's input (src_len bytes); `least` and
 * `greatest` take one key per channel (extent[channel_axis], or 1), all 0
 * for an empty tensor.  `space`: sk_range_space bytes, 64-byte aligned
 * (SK_INVALID_OPERATION when null, short or misaligned; none per tensor).
 * `block` >= 1 (with a channel axis; 0: none) is blocked: one key pair per
 * entry of the parameter shape (the shape with ceil(extent / block) along
 * `channel_axis`), in its C order, each the range of the entry's block of
 * elements (element i's entry: i with i[axis] / block); no entry written
 * when the parameter shape is empty. */
uint64_t sk_range_space(int input, const sk_layout *layout, int channel_axis, int64_t block);
int sk_range_execute(int input, int route, const sk_layout *layout, int channel_axis, int64_t block, const void *src,
                     uint64_t src_len, void *space, uint64_t space_bytes, int64_t *least, int64_t *greatest);
/* Elements per block a vector route's range leaf folds before it checks the
 * block for non-finite values (a block that has one is folded again without
 * them); the registry gives each leaf's elements per iteration (the scalar
 * route's, 1, checks every element). */
enum { SK_RANGE_CHECK = 512 };

/* ---- EV74 host codec ---------------------------------------------------- */
/* The 224-byte little-endian descriptor of simaai_kernels_ev74_quant_v1.
 * Offsets are fixed by the API; sk_ev74_field_at lists every field with its
 * offset and type, and simakernels.ev74 builds its struct layout from it. */
enum sk_ev74_layout {
    SK_EV74_DESCRIPTOR_SIZE = 224,
    SK_EV74_MAGIC = 0x3151534b, /* bytes "KSQ1" */
    SK_EV74_VERSION = 1,
    SK_EV74_MAX_RANK = 6,
    SK_EV74_OFF_MAGIC = 0,
    SK_EV74_OFF_VERSION = 4,
    SK_EV74_OFF_LENGTH = 6,
    SK_EV74_OFF_CONVERSION = 8,
    SK_EV74_OFF_RANK = 12,
    SK_EV74_OFF_FLAGS = 16,
    SK_EV74_OFF_RESERVED0 = 20,
    SK_EV74_OFF_INPUT_ADDRESS = 24,
    SK_EV74_OFF_OUTPUT_ADDRESS = 32,
    SK_EV74_OFF_COUNT = 40,
    SK_EV74_OFF_INPUT_SPAN = 48,
    SK_EV74_OFF_OUTPUT_SPAN = 56,
    SK_EV74_OFF_EXTENTS = 64,
    SK_EV74_OFF_INPUT_STRIDES = 112,
    SK_EV74_OFF_OUTPUT_STRIDES = 160,
    SK_EV74_OFF_MULTIPLIER = 208,
    SK_EV74_OFF_ZERO_POINT = 212,
    SK_EV74_OFF_ROUNDING = 216,
    SK_EV74_OFF_RESERVED1 = 220,
    SK_EV74_FIELD_COUNT = 19
};
/* One descriptor field: `count` little-endian integers of `size` bytes
 * (signed or not) from `offset`; the table is in wire order. */
typedef struct sk_ev74_field {
    const char *name;
    int32_t offset;
    int32_t size;
    int32_t count;
    int32_t is_signed;
} sk_ev74_field;
/* Field `index` (0 .. SK_EV74_FIELD_COUNT - 1), or NULL. */
const sk_ev74_field *sk_ev74_field_at(int index);

/* Flag bits; every other bit is reserved and must be zero. */
enum sk_ev74_flags { SK_EV74_FLAG_SCALAR = 1 }; /* a rank-0 request lowered to rank 1 */

typedef struct sk_ev74_descriptor {
    uint32_t conversion; /* enum sk_quant_input */
    uint32_t rank;
    uint32_t flags;
    uint32_t rounding;      /* enum sk_quant_rounding */
    uint64_t input_address; /* 0 in a relocatable packet */
    uint64_t output_address;
    uint64_t count;      /* logical elements; 0: empty, no numerical work */
    uint64_t input_span; /* accessed bytes */
    uint64_t output_span;
    uint64_t extent[6];
    uint64_t input_stride[6];
    uint64_t output_stride[6];
    uint32_t multiplier_bits;
    int32_t zero_point;
    int32_t entry; /* numerical entry: conversion * 4 + rounding */
    int32_t bound; /* both address slots are set */
} sk_ev74_descriptor;

/* Why the device refuses a packet: the check that failed, the port (0
 * input, 1 output, -1 none) and axis it names, the shared rule (enum
 * sk_rule) for layout and binding faults, and the values its message
 * states.  The validation (csrc/ev74/validate.h) fills it, on the host and
 * in the kernel alike; sk_ev74_explain words it. */
enum sk_ev74_check {
    SK_EV74_CHECK_NONE = 0,
    SK_EV74_CHECK_LENGTH = 1,       /* value[0]: the bytes given */
    SK_EV74_CHECK_MAGIC = 2,        /* value[0]: the field */
    SK_EV74_CHECK_VERSION = 3,      /* value[0]: the field */
    SK_EV74_CHECK_BYTE_LENGTH = 4,  /* value[0]: the field */
    SK_EV74_CHECK_CONVERSION = 5,   /* value[0]: the field */
    SK_EV74_CHECK_RANK = 6,         /* value[0]: the field */
    SK_EV74_CHECK_FLAGS = 7,        /* value[0]: the field */
    SK_EV74_CHECK_RESERVED = 8,     /* value[0]: the word, value[1]: its offset */
    SK_EV74_CHECK_MULTIPLIER = 9,   /* value[0]: the bits */
    SK_EV74_CHECK_ZERO_POINT = 10,  /* value[0]: the field, as a signed 32-bit value */
    SK_EV74_CHECK_ROUNDING = 11,    /* value[0]: the field */
    SK_EV74_CHECK_UNUSED_AXIS = 12, /* axis; value: extent, input stride, output stride */
    SK_EV74_CHECK_SCALAR = 13,      /* value: rank, extents[0] */
    SK_EV74_CHECK_COUNT_LIMIT = 14, /* axis; value[0]: the extent */
    SK_EV74_CHECK_COUNT = 15,       /* value: the field, the extents' product */
    SK_EV74_CHECK_LAYOUT = 16,      /* port, axis, rule; value: the fault's value and limit, the stride, and the
                                     * extent (SK_RULE_SPAN_LIMIT) or the count (SK_RULE_NOT_NORMALISED) */
    SK_EV74_CHECK_SPAN = 17,        /* port; value: the field, the bytes the geometry accesses */
    SK_EV74_CHECK_HALF_BOUND = 18,  /* port: the slot that is 0; value[0]: the other slot */
    SK_EV74_CHECK_ADDRESS = 19,     /* port; value[0]: the slot, beyond 32 bits */
    SK_EV74_CHECK_BINDING = 20,     /* port, rule; value: the fault's value and limit, the input and output spans */
    SK_EV74_CHECK_UNBOUND = 21,     /* submission: both slots 0 (a relocatable packet) */
    SK_EV74_CHECK_MEMORY = 22       /* submission: port; value: the address, the span (outside device memory) */
};
typedef struct sk_ev74_why {
    int32_t status; /* enum sk_status: SK_INVALID_DESCRIPTOR, or SK_INVALID_BINDING at submission */
    int32_t check;  /* enum sk_ev74_check */
    int32_t port;
    int32_t axis;
    int32_t rule; /* enum sk_rule */
    int32_t reserved;
    uint64_t value[4];
} sk_ev74_why;

/* Device-side validation of every field before an entry is selected:
 * SK_OK with *out filled, or SK_INVALID_DESCRIPTOR with a NUL-terminated
 * message naming the field (at most `capacity` bytes). */
int sk_ev74_decode(const uint8_t *bytes, size_t length, sk_ev74_descriptor *out, char *message, size_t capacity);

/* What the device checks at submission besides the descriptor: both slots
 * bound, and both accessed ranges inside its memory [base, base + size).
 * SK_OK, or SK_INVALID_BINDING with the message. */
int sk_ev74_admit(const sk_ev74_descriptor *d, uint64_t base, uint64_t size, char *message, size_t capacity);

/* The message of a refusal (a record the kernel wrote, or the host's);
 * returns its status. */
int sk_ev74_explain(const sk_ev74_why *why, char *message, size_t capacity);

/* ---- EV74 kernel ---------------------------------------------------------- */
/* The OpenCL C program of simaai_kernels_ev74_quant_v1 (csrc/ev74/kernel.cl
 * with the headers it includes inlined): what a firmware build compiles,
 * and what the host's OpenCL engine builds. */
const char *sk_ev74_kernel_source(void);

/* What the entry's control record says (`length` bytes the kernel wrote,
 * SK_EV74_CONTROL_SIZE of them): SK_OK with the work units, the workgroups
 * that take them and the bytes of each workgroup's two local input slots
 * and two local output slots (the workers' __local arguments: 40 KiB for
 * FP32 DMA blocks, 48 KiB for BF16/FP16), or the refusal's status and
 * message. */
int sk_ev74_control_read(const uint8_t *control, uint64_t length, uint32_t *units, uint32_t *workgroups,
                         uint32_t *input_slots, uint32_t *output_slots, char *message, size_t capacity);

/* Work geometry both the kernel and the host model follow (the
 * specification's private block constants). */
enum sk_ev74_geometry {
    SK_EV74_DMA_MIN = 128,          /* contiguous spans from here move in DMA blocks */
    SK_EV74_DIRECT_MIN = 16,        /* 16..127: direct vector loads and stores */
    SK_EV74_MAX_WORKGROUPS = 4,     /* the ring is capped here */
    SK_EV74_DMA_BLOCK_F32 = 4096,   /* elements per DMA block of FP32 input */
    SK_EV74_DMA_BLOCK_16BIT = 8192, /* of BF16 and FP16 input */
    SK_EV74_INPUT_SLOT_BYTES = 16384,
    SK_EV74_LANES = 16,        /* elements per vector block */
    SK_EV74_CONTROL_SIZE = 192 /* the entry's control record for its workers */
};
/* A work unit's kind, and the trace record the kernel writes per unit when
 * given a trace buffer (SK_EV74_TRACE_WORDS 32-bit words, at the unit's
 * index). */
enum sk_ev74_unit { SK_EV74_UNIT_DMA = 0, SK_EV74_UNIT_VECTOR = 1, SK_EV74_UNIT_SCATTER = 2 };
enum sk_ev74_trace {
    SK_EV74_TRACE_CPU = 0,
    SK_EV74_TRACE_KIND = 1,
    SK_EV74_TRACE_INPUT = 2,
    SK_EV74_TRACE_OUTPUT = 3,
    SK_EV74_TRACE_COUNT = 4,
    SK_EV74_TRACE_SLOT = 5, /* ping-pong slot of a DMA unit, else -1 */
    SK_EV74_TRACE_WORDS = 6
};

/* Host device model: the decoded entry's numerical core (the Quant leaves of
 * `route`, as the A65 backend runs them) on `n` packed elements, after the
 * binding check of the two host views (src_len and dst_len bytes). */
int sk_ev74_run_span(const sk_ev74_descriptor *d, int route, const void *src, uint64_t src_len, void *dst,
                     uint64_t dst_len, uint64_t n);

/* ---- Hurray per-tensor affine dequantization ----------------------------- */
enum sk_hurray_storage {
    SK_HURRAY_INT8 = 0,
    SK_HURRAY_UINT8 = 1,
    SK_HURRAY_INT16 = 2,
    SK_HURRAY_UINT16 = 3,
    SK_HURRAY_INT32 = 4,
    SK_HURRAY_UINT32 = 5,
    SK_HURRAY_INT4 = 6,
    SK_HURRAY_UINT4 = 7,
    SK_HURRAY_INT2 = 8,
    SK_HURRAY_UINT2 = 9,
    SK_HURRAY_STORAGE_COUNT = 10
};
/* x = scale * (q - zero_point): the difference in wrapping signed 32-bit
 * arithmetic, converted to binary32 (nearest-even), times the binary32 scale
 * (affine dequant's arithmetic: this entry runs its engine).
 * `count` elements; sub-byte storage is packed little-end first (element 0 in
 * the least significant bits of byte 0).  Checks the FP environment first
 * (SK_UNSUPPORTED_ENVIRONMENT): nearest rounding, gradual underflow, no traps;
 * before it, the binding check of the two views (src_len, dst_len bytes). */
int sk_hurray_dequantize(int storage, uint32_t scale_bits, int32_t zero_point, const void *src, uint64_t src_len,
                         void *dst, uint64_t dst_len, uint64_t count);
/* Bits per element of a storage type (0 for an unknown code). */
int sk_hurray_storage_bits(int storage);

/* ---- Integer formats beyond INT8: affine quant and affine dequant ------- */
/* The storage codes are enum sk_hurray_storage's (above); a type of b bits
 * (sk_hurray_storage_bits) holds [-2^(b-1), 2^(b-1) - 1] when signed,
 * [0, 2^b - 1] when unsigned.  SK_OK, or SK_INVALID_OPERATION for an
 * unknown code. */
int sk_storage_range(int storage, int64_t *least, int64_t *greatest);

/* The parameters of `operation` (SK_OP_AFFINE_QUANT with an output storage
 * other than INT32/UINT32, or SK_OP_AFFINE_DEQUANT with any storage; else
 * SK_INVALID_OPERATION): the `bits_count` multiplier or scale bits, then
 * the `zero_points_count` zero points, each in index order.  Affine quant:
 * multipliers as Quant's (SK_RULE_NOT_FINITE_POSITIVE).  Affine dequant:
 * scales finite and nonzero, negative and subnormal ones included
 * (SK_RULE_NOT_FINITE_NONZERO).  Zero points within the storage range
 * (sk_storage_range; UINT32: [0, 2^32 - 1]) (SK_RULE_ZERO_POINT_RANGE).
 * Returns the fault's status; *at is the index of the entry at fault (0 if
 * none). */
int sk_affine_params_check(int operation, int storage, const uint32_t *bits, uint64_t bits_count,
                           const int64_t *zero_points, uint64_t zero_points_count, uint64_t *at, sk_fault *fault);

/* Sub-byte storage (INT4, UINT4, INT2, UINT2) has two images: one element
 * per byte (its low `bits` bits; high bits zero on write, ignored on read)
 * and packed (C order, element 0 in the least significant bits of byte 0,
 * ceil(n * bits / 8) bytes).  A plan's walk always describes the sub-byte
 * port as one byte per element (a packed port: C-order strides of 1-byte
 * elements, the unpacked image); `packed` 1 makes execute read or write
 * the packed image instead: one dense run goes in chunks of
 * SK_AFFINE_CHUNK elements through a stack buffer (fused); any other walk
 * goes through the caller's scratch of plan->scratch_bytes bytes (n, the
 * element count; prepare sets it, 0 when execute needs none).  An output's
 * unused high bits of its last byte are preserved. */
enum { SK_AFFINE_CHUNK = 1024 };

/* sk_pack: `count` elements, one per byte (the low bits count) from src,
 * packed into dst (ceil(count * bits / 8) bytes; the unused high bits of
 * its last byte preserved).  sk_unpack: the reverse, high bits written
 * zero.  The binding check of both views first (any alignment; views that
 * overlap are refused); SK_INVALID_OPERATION for a storage that is not
 * sub-byte. */
int sk_pack(int storage, const void *src, uint64_t src_len, void *dst, uint64_t dst_len, uint64_t count);
int sk_unpack(int storage, const void *src, uint64_t src_len, void *dst, uint64_t dst_len, uint64_t count);

/* What the affine quant leaves read, from one multiplier and zero point
 * (per tensor: the plan's; per axis: each channel's, in the workspace) for
 * one state of the control register (flushing or not). */
typedef struct sk_affine_quant_ctx {
    float multiplier;
    int32_t zero_point;
    uint64_t msig; /* multiplier = msig * 2^mexp, msig odd */
    int32_t mexp;
    int32_t flushes; /* the control register flushes: blocks are tested for the exact path */
    int32_t least;   /* the storage range */
    int32_t greatest;
    uint32_t mask; /* 2^bits - 1: the bits an unpacked output byte (or word) holds */
    int32_t width; /* output bytes per element: 1 or 2 */
} sk_affine_quant_ctx;
/* FLOAT32, BFLOAT16, FLOAT16 -> INT8, UINT8, INT16, UINT16, INT4, UINT4,
 * INT2, UINT2: Quant's ordered arithmetic saturated to the storage range.
 * The kernel table's variants are sk_quant_variant(input, rounding). */
enum { SK_AFFINE_QUANT_VARIANTS = 12 };
typedef struct sk_affine_quant_plan {
    int32_t input;              /* enum sk_quant_input */
    int32_t rounding;           /* enum sk_quant_rounding */
    int32_t route;              /* enum sk_route */
    int32_t storage;            /* enum sk_hurray_storage, not INT32/UINT32 */
    int32_t packed;             /* sub-byte storage: 1 packed, 0 one element per byte */
    uint32_t multiplier_bits;   /* admitted: finite, > 0 */
    int32_t zero_point;         /* admitted: within the storage range */
    int32_t prepared;           /* set by sk_affine_quant_prepare */
    uint64_t scratch_bytes;     /* set by prepare: the scratch execute needs (0: none) */
    sk_affine_quant_ctx ctx[2]; /* per tensor: [flushes] */
    sk_axis axis;               /* per-axis / blocked parameters, as sk_quant_plan's */
    sk_binding binding;
    sk_walk walk;
} sk_affine_quant_plan;
/* Workspace bytes of a per-axis or blocked plan (axis.count and
 * axis.block set; 0 for a count out of range). */
uint64_t sk_affine_quant_axis_space(const sk_affine_quant_plan *plan);
/* After the walk (and, per axis, the axis fields): validates the codes
 * (SK_INVALID_OPERATION) and the parameters (SK_INVALID_PARAMS), decodes
 * them, decides the walk and sets scratch_bytes; a per-axis plan fills its
 * workspace (null, short or misaligned: SK_INVALID_OPERATION). */
int sk_affine_quant_prepare(sk_affine_quant_plan *plan);
/* SK_INVALID_OPERATION for a plan prepare did not accept; the binding
 * check of src and dst; then, for nonempty work, the scratch (null or
 * shorter than scratch_bytes when it needs one: SK_INVALID_BINDING) and
 * the FP environment (nearest rounding, no traps; flush modes are repaired
 * exactly: SK_UNSUPPORTED_ENVIRONMENT) before any write. */
int sk_affine_quant_execute(const sk_affine_quant_plan *plan, const void *src, uint64_t src_len, void *dst,
                            uint64_t dst_len, void *scratch, uint64_t scratch_len);
/* sk_affine_quant_execute with the scratch it needs (plan->scratch_bytes)
 * allocated here and freed before it returns (SK_OVERFLOW when the
 * allocation fails, before anything is written): the entry of callers that
 * hold no scratch of their own, with the other operations' signature. */
int sk_affine_quant_run(const sk_affine_quant_plan *plan, const void *src, uint64_t src_len, void *dst,
                        uint64_t dst_len);

/* What the affine dequant leaves read, from one scale and zero point. */
typedef struct sk_affine_dequant_ctx {
    float scale;
    int32_t zero_point; /* UINT32 storage: its uint32 bits */
    uint32_t mask;      /* the stored element's bits: 2^bits - 1 (32-bit storage: all ones) */
    uint32_t sign;      /* 2^(bits-1) for signed storage below 32 bits, else 0 */
    /* Per-tensor sub-byte plans (set by prepare when the FP state is the one
     * execute admits): the 16 possible results as byte planes, table[16 * p
     * + v] = byte p of the result (FP32: bytes 0..3, BF16: 0..1) for the
     * stored bits v; table_ready 0 when not made. */
    int32_t table_ready;
    uint8_t table[64];
} sk_affine_dequant_ctx;
/* INT8, UINT8, INT16, UINT16, INT32, UINT32, INT4, UINT4, INT2, UINT2 ->
 * FLOAT32, BFLOAT16: d = (int32)(q - zero_point) wrapping modulo 2^32,
 * binary32(d) nearest-even, times the binary32 scale; BF16 narrowed by
 * Cast's rule.  The kernel table's variants: an output and the storage's
 * element bytes (1, 2 or 4), sk_affine_dequant_variant. */
enum { SK_AFFINE_DEQUANT_VARIANTS = 6 };
/* The variant of an output (enum sk_dequant_output) and a storage; -1 for
 * an unknown code. */
int sk_affine_dequant_variant(int output, int storage);
typedef struct sk_affine_dequant_plan {
    int32_t storage;           /* enum sk_hurray_storage, any of the ten */
    int32_t packed;            /* sub-byte storage: 1 packed, 0 one element per byte */
    int32_t output;            /* enum sk_dequant_output */
    int32_t route;             /* enum sk_route */
    uint32_t scale_bits;       /* admitted: finite, nonzero */
    int32_t zero_point;        /* admitted: within the storage range (UINT32: its uint32 bits) */
    int32_t prepared;          /* set by sk_affine_dequant_prepare */
    int32_t variant;           /* set by prepare: the kernel table's entry */
    uint64_t scratch_bytes;    /* set by prepare: the scratch execute needs (0: none) */
    sk_affine_dequant_ctx ctx; /* per tensor */
    sk_axis axis; /* per-axis / blocked parameters, as sk_dequant_plan's (UINT32: zero points' uint32 bits) */
    sk_binding binding;
    sk_walk walk;
} sk_affine_dequant_plan;
uint64_t sk_affine_dequant_axis_space(const sk_affine_dequant_plan *plan);
int sk_affine_dequant_prepare(sk_affine_dequant_plan *plan);
/* As sk_affine_quant_execute's checks, with Dequant's FP environment
 * (nearest, gradual underflow, no traps). */
int sk_affine_dequant_execute(const sk_affine_dequant_plan *plan, const void *src, uint64_t src_len, void *dst,
                              uint64_t dst_len, void *scratch, uint64_t scratch_len);
/* sk_affine_dequant_execute with its scratch allocated here, as
 * sk_affine_quant_run. */
int sk_affine_dequant_run(const sk_affine_dequant_plan *plan, const void *src, uint64_t src_len, void *dst,
                          uint64_t dst_len);

/* ---- sk.choose_qparams: the rule ---------------------------------------- */
/* For `count` channels, from each one's range keys (least[c] <= 0 <=
 * greatest[c]: +magnitude or -magnitude, the magnitude being the value's
 * bits below the sign, finite) in the input format (enum sk_quant_input),
 * writes the scale bits, zero point and multiplier bits docs/qparams.md's
 * rule gives for the levels of the storage type `storage` (enum
 * sk_hurray_storage: its whole range, signed [-2^(b-1), 2^(b-1) - 1] or
 * unsigned [0, 2^b - 1]), asymmetric or `symmetric` (levels -(2^(b-1) - 1)
 * .. 2^(b-1) - 1, zero point 0).  Exact, in integer arithmetic only: the FP
 * state changes nothing and traps nothing.  Returns SK_UNSUPPORTED_DTYPE
 * for another input, and for INT32, UINT32 or an unknown storage code;
 * SK_INVALID_PARAMS for `symmetric` with an unsigned storage type;
 * SK_INVALID_BINDING for a null array when count > 0; SK_INVALID_PARAMS for
 * a key out of range (the outputs are then unspecified). */
int sk_qparams_rule(int input, int storage, int symmetric, const int64_t *least, const int64_t *greatest,
                    uint64_t count, uint32_t *scale, int32_t *zero_point, uint32_t *multiplier);
/* sk.choose_qparams in one call: the storage type and mode checks of
 * sk_qparams_rule, then the range pass (sk_range_execute's arguments and
 * checks, in its order), then the rule (sk_qparams_rule) on its keys, one
 * scale, zero point and multiplier per channel (extent[channel_axis], or
 * 1; none written for no channel): `scale` and `multiplier` take uint32_t
 * binary32 bits, `zero_point` int32_t (void pointers, so that the Python
 * layer binds its arrays untyped).  `space`: sk_qparams_space bytes, any
 * alignment (0: none needed, the accumulators fit on the stack;
 * SK_INVALID_OPERATION when null or short).  `block` as
 * sk_range_execute's: one parameter set per entry of the parameter shape,
 * in its C order.  (`input` and `route` read the data, as the range pass
 * takes them; `storage` and `symmetric` choose the levels, as the rule
 * takes them.) */
uint64_t sk_qparams_space(int input, const sk_layout *layout, int channel_axis, int64_t block);
int sk_qparams_choose(int input, int route, int storage, int symmetric, const sk_layout *layout, int channel_axis,
                      int64_t block, const void *src, uint64_t src_len, void *space, uint64_t space_bytes, void *scale,
                      void *zero_point, void *multiplier);

/* ---- sk.quantize_dynamic: choose_qparams then Quant, in one call ---------- */
/* `plan` is a prepared Quant plan for the call's input and output layouts
 * and rounding (its parameters are placeholders; it is only read, so
 * threads share it): per tensor (axis.count 0), per channel of
 * `channel_axis` or blocked (axis.axis, axis.block and axis.count as the
 * parameters will be; an empty tensor's plan is per tensor).  `layout` is
 * the input's (as sk_qparams_choose takes it), `channel_axis` and `block`
 * the parameters' (-1 and 0 per tensor).  Runs sk_qparams_choose (INT8 levels) into
 * `scale`, `zero_point` and `multiplier` (one entry per tensor, channel or
 * block entry, C order of the parameter shape), then prepares a copy of
 * the plan with those multipliers and zero points, in the workspace, and
 * executes it: the result is bit for bit sk_qparams_choose's followed by
 * sk_quant_prepare and sk_quant_execute, with their statuses (the range
 * pass's checks first; nothing is written to dst unless every check
 * passes).  `space`: sk_quant_dynamic_space bytes, any alignment (null
 * when 0); SK_INVALID_OPERATION when short or for a plan of other
 * parameters. */
uint64_t sk_quant_dynamic_space(const sk_quant_plan *plan, const sk_layout *layout, int channel_axis, int64_t block);
int sk_quant_dynamic(const sk_quant_plan *plan, int symmetric, const sk_layout *layout, int channel_axis, int64_t block,
                     const void *src, uint64_t src_len, void *dst, uint64_t dst_len, void *space, uint64_t space_bytes,
                     void *scale, void *zero_point, void *multiplier);

#endif
