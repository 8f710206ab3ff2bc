/* The range pass of choose_qparams: kernel table, workspace and entry.  The
 * walk is prepared with the input alone (both ports the input), so its
 * axis sort, coalescing and carry serve the reduction unchanged. */
#include <string.h>
#include "range.h"
#include "../qparams/rule.h"

/* [route][input] (enum sk_quant_input), from the registry. */
#define RANGE_ENTRY(route, variant, kind, symbol, block) [SK_ROUTE_##route][variant].RANGE_FIELD_##kind = symbol,
#define RANGE_FIELD_fold fold
#define RANGE_FIELD_fold_periodic periodic
static const sk_reducer range_kernels[SK_ROUTE_COUNT][3] = {
#define SK_LEAF RANGE_ENTRY
#include "range_kernels.inc"
#undef SK_LEAF
};

static int input_size(int input) {
    return input == SK_QUANT_F32 ? 4 : input == SK_QUANT_BF16 || input == SK_QUANT_F16 ? 2 : 0;
}

/* Where each input format's infinity starts (the accumulators carry it). */
static const uint32_t input_inf[3] = {
    [SK_QUANT_F32] = SK_RANGE_INF_F32, [SK_QUANT_BF16] = SK_RANGE_INF_BF16, [SK_QUANT_F16] = SK_RANGE_INF_F16};

/* Entries of a layout's parameters: 1 per tensor, the axis's extent per
 * channel, and blocked (block >= 1, with an axis) the product of the
 * parameter shape (the shape with ceil(extent / block) along the axis);
 * -1 for arguments out of contract. */
static int64_t channels_of(const sk_layout *layout, int channel_axis, int64_t block) {
    if (!layout || layout->rank < 0 || layout->rank > SK_MAX_RANK || channel_axis < -1 ||
        channel_axis >= layout->rank || block < 0 || (block > 0 && channel_axis < 0))
        return -1;
    if (channel_axis < 0) return 1;
    if (block == 0)
        return layout->extent[channel_axis] > (uint64_t)INT64_MAX / 8 ? -1 : (int64_t)layout->extent[channel_axis];
    uint64_t count = 1;
    for (int a = 0; a < layout->rank; ++a) {
        const uint64_t e = layout->extent[a];
        const uint64_t n = a == channel_axis ? e / (uint64_t)block + (e % (uint64_t)block != 0) : e;
        if (n && count > (uint64_t)INT64_MAX / 8 / n) return -1;
        count *= n;
    }
    return (int64_t)count;
}

/* Per tensor the accumulators live on the stack; per channel or block
 * entry, two words per entry (signed maxima, then unsigned), each array
 * 64-byte aligned; blocked, two more arrays for the accumulators in the
 * caller's order when the walk's table order differs. */
static uint64_t half_space(int input, int64_t channels) {
    return ((uint64_t)channels * (uint64_t)input_size(input) + 63) / 64 * 64;
}

static uint64_t words_space(int input, int64_t channels, int64_t block) {
    return (block ? 4 : 2) * half_space(input, channels);
}

uint64_t sk_range_space(int input, const sk_layout *layout, int channel_axis, int64_t block) {
    const int64_t channels = channels_of(layout, channel_axis, block);
    if (channels < 0 || !input_size(input) || channel_axis < 0) return 0;
    return words_space(input, channels, block);
}

/* The checks every entry makes, in its order: the codes, the layout and the
 * input binding.  Fills `channels`, `port` (the layout as the walk takes
 * it) and its `span`. */
static int range_check(int input, int route, const sk_layout *layout, int channel_axis, int64_t block, const void *src,
                       uint64_t src_len, int64_t *channels, sk_layout *port, uint64_t *span) {
    const int size = input_size(input);
    *channels = channels_of(layout, channel_axis, block);
    if (!size || *channels < 0 || !sk_route_usable(route)) return SK_INVALID_OPERATION;
    *port = *layout;
    port->port = 0;
    port->domain = SK_DOMAIN_HOST;
    port->normalised = 0;
    port->item = size;
    sk_fault fault;
    const int laid = sk_layout_check(port, span, &fault);
    if (laid != SK_OK) return laid;
    const sk_binding need = {*span, (uint64_t)size, 0, 1};
    return sk_binding_check(&need, src, src_len, NULL, 0);
}

/* Whether a blocked walk's table order is the caller's (C order of the
 * parameter shape): every walk axis steps both alike. */
static int caller_ordered(const sk_walk *walk) {
    for (int a = 0; a <= walk->outer_rank; ++a)
        if (walk->param_step[a] != walk->param_source[a]) return 0;
    return 1;
}

/* The range pass of a checked, nonempty-channel layout into the
 * accumulators at `words` (two arrays, `half` bytes apart; zeroed here;
 * blocked, two more after them, where the accumulators are put in the
 * caller's order if the walk's table order is another: acc then points
 * there). */
static int range_accumulate(int input, int route, const sk_layout *port, uint64_t span, int channel_axis, int64_t block,
                            const void *src, int64_t channels, char *words, uint64_t half, sk_range_acc *acc) {
    const int size = input_size(input);
    const size_t bytes = (size_t)channels * (size_t)size;
    acc->smax = words;
    acc->umax = words + half;
    acc->inf = input_inf[input];
    memset(acc->smax, 0, bytes); /* 0: the range always holds 0, and 0 is what non-finite elements count as */
    memset(acc->umax, 0, bytes);
    if (span > 0) { /* nonempty */
        int64_t extent[SK_MAX_RANK];
        for (int a = 0; a < port->rank; ++a) extent[a] = (int64_t)port->extent[a];
        sk_walk walk;
        const int prepared =
            block ? sk_walk_prepare_blocked(port->rank, extent, port->stride, port->stride, size, size, channel_axis,
                                            block, &walk)
                  : sk_walk_prepare(port->rank, extent, port->stride, port->stride, size, size, channel_axis, &walk);
        if (prepared != SK_OK) return prepared;
        sk_walk_reduce(&walk, src, &range_kernels[route][input], route, acc);
        if (block && !caller_ordered(&walk)) { /* the walk folded in its table order */
            sk_walk_params_scatter(&walk, words, words + 2 * half, (size_t)size);
            sk_walk_params_scatter(&walk, words + half, words + 3 * half, (size_t)size);
            acc->smax = words + 2 * half;
            acc->umax = words + 3 * half;
        }
    }
    return SK_OK;
}

/* The sign-magnitude keys of channels [first, first + count): the signed
 * maximum is the greatest value's bits (at least 0); an unsigned maximum
 * with the sign set is the least value's, whose key is minus its magnitude. */
static void range_keys(int size, const sk_range_acc *acc, int64_t first, int64_t count, int64_t *least,
                       int64_t *greatest) {
    for (int64_t i = 0; i < count; ++i) {
        const int64_t c = first + i;
        if (size == 4) {
            const uint32_t u = ((uint32_t *)acc->umax)[c];
            greatest[i] = ((int32_t *)acc->smax)[c];
            least[i] = u >> 31 ? -(int64_t)(u & 0x7FFFFFFFu) : 0;
        } else {
            const uint16_t u = ((uint16_t *)acc->umax)[c];
            greatest[i] = ((int16_t *)acc->smax)[c];
            least[i] = u >> 15 ? -(int64_t)(u & 0x7FFFu) : 0;
        }
    }
}

int sk_range_execute(int input, int route, const sk_layout *layout, int channel_axis, int64_t block, const void *src,
                     uint64_t src_len, void *space, uint64_t space_bytes, int64_t *least, int64_t *greatest) {
    int64_t channels;
    sk_layout port;
    uint64_t span;
    const int checked = range_check(input, route, layout, channel_axis, block, src, src_len, &channels, &port, &span);
    if (checked != SK_OK || channels == 0) return checked; /* no channel: no key to write */
    if (!least || !greatest) return SK_INVALID_OPERATION;
    const uint64_t half = channel_axis < 0 ? 64 : half_space(input, channels);
    if (channel_axis >= 0 && (!space || space_bytes < words_space(input, channels, block) || (uintptr_t)space % 64))
        return SK_INVALID_OPERATION;
    _Alignas(64) char local[2 * 64];
    sk_range_acc acc;
    const int status = range_accumulate(input, route, &port, span, channel_axis, block, src, channels,
                                        channel_axis < 0 ? local : space, half, &acc);
    if (status != SK_OK) return status;
    range_keys(input_size(input), &acc, 0, channels, least, greatest);
    return SK_OK;
}

/* Bytes of accumulators the fused entry keeps on its own stack. */
enum { QPARAMS_LOCAL = 8192, QPARAMS_CHUNK = 128 /* channels per rule call */ };

uint64_t sk_qparams_space(int input, const sk_layout *layout, int channel_axis, int64_t block) {
    const int64_t channels = channels_of(layout, channel_axis, block);
    if (channels < 0 || !input_size(input) || channel_axis < 0 || words_space(input, channels, block) <= QPARAMS_LOCAL)
        return 0;
    return words_space(input, channels, block) + 63; /* any alignment: aligned here */
}

int sk_qparams_choose(int input, int route, int storage, int symmetric, const sk_layout *layout, int channel_axis,
                      int64_t block, const void *src, uint64_t src_len, void *space, uint64_t space_bytes, void *scale,
                      void *zero_point, void *multiplier) {
    int64_t level_min, level_max; /* the storage type and mode first: the rule would refuse them after the pass */
    const int levels = sk_qparams_levels(storage, symmetric != 0, &level_min, &level_max);
    if (levels != SK_OK) return levels;
    int64_t channels;
    sk_layout port;
    uint64_t span;
    const int checked = range_check(input, route, layout, channel_axis, block, src, src_len, &channels, &port, &span);
    if (checked != SK_OK || channels == 0) return checked; /* no channel: no parameters to write */
    if (!scale || !zero_point || !multiplier) return SK_INVALID_OPERATION;
    const uint64_t half = channel_axis < 0 ? 64 : half_space(input, channels);
    _Alignas(64) char local[QPARAMS_LOCAL];
    char *words = local;
    if (channel_axis >= 0 && words_space(input, channels, block) > QPARAMS_LOCAL) { /* the caller's, aligned here */
        const uintptr_t start = ((uintptr_t)space + 63) / 64 * 64;
        if (!space || space_bytes < start - (uintptr_t)space + words_space(input, channels, block))
            return SK_INVALID_OPERATION;
        words = (char *)start;
    }
    sk_range_acc acc;
    const int status =
        range_accumulate(input, route, &port, span, channel_axis, block, src, channels, words, half, &acc);
    if (status != SK_OK) return status;
    int64_t least[QPARAMS_CHUNK], greatest[QPARAMS_CHUNK];
    for (int64_t c = 0; c < channels; c += QPARAMS_CHUNK) {
        const int64_t k = channels - c < QPARAMS_CHUNK ? channels - c : QPARAMS_CHUNK;
        range_keys(input_size(input), &acc, c, k, least, greatest);
        const int ruled = sk_qparams_rule(input, storage, symmetric, least, greatest, (uint64_t)k,
                                          (uint32_t *)scale + c, (int32_t *)zero_point + c, (uint32_t *)multiplier + c);
        if (ruled != SK_OK) return ruled; /* unreachable: the keys of finite values are in range */
    }
    return SK_OK;
}
