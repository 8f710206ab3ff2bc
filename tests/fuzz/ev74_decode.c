/* libFuzzer target for the native EV74 descriptor decoder (sk_ev74_decode),
 * built with AddressSanitizer and UBSan by `make fuzz`.
 *
 * Every input is decoded from a heap copy of exactly its length (so any
 * read past it is an ASan report), then checked against properties stated
 * here independently of the decoder:
 *  - a rejection has a nonempty, NUL-terminated message naming a field (or
 *    the length), and decoding again with a small message buffer (0..8
 *    bytes, also an exact heap allocation) gives the same status without
 *    writing past it;
 *  - an acceptance has an empty message; re-encoding the decoded fields
 *    gives the input bytes back (so nothing was misread or left unchecked
 *    in a reserved field); and its geometry obeys the API's rules, computed
 *    here in 128-bit arithmetic: parameters in range, count = product of
 *    the extents, spans = 1 element + sum (extent-1) * stride, both ranges
 *    inside the 32-bit domain, disjoint when bound, and (for up to 4096
 *    elements) every element of each port at a distinct offset.
 * Any violation aborts, which libFuzzer reports as a crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simakernels.h"

#define CHECK(cond, what)                                                       \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "ev74_decode fuzz: property violated: %s\n", what); \
            abort();                                                            \
        }                                                                       \
    } while (0)

static const unsigned __int128 DOMAIN = (unsigned __int128)1 << 32;

static void put(uint8_t *b, int offset, uint64_t v, int width) {
    for (int i = 0; i < width; ++i) b[offset + i] = (uint8_t)(v >> (8 * i));
}

/* The wire bytes of a decoded descriptor (the documented layout, docs/ev74_descriptor.md). */
static void encode(const sk_ev74_descriptor *d, uint8_t *b) {
    memset(b, 0, SK_EV74_DESCRIPTOR_SIZE);
    put(b, SK_EV74_OFF_MAGIC, SK_EV74_MAGIC, 4);
    put(b, SK_EV74_OFF_VERSION, SK_EV74_VERSION, 2);
    put(b, SK_EV74_OFF_LENGTH, SK_EV74_DESCRIPTOR_SIZE, 2);
    put(b, SK_EV74_OFF_CONVERSION, d->conversion, 4);
    put(b, SK_EV74_OFF_RANK, d->rank, 4);
    put(b, SK_EV74_OFF_FLAGS, d->flags, 4);
    put(b, SK_EV74_OFF_INPUT_ADDRESS, d->input_address, 8);
    put(b, SK_EV74_OFF_OUTPUT_ADDRESS, d->output_address, 8);
    put(b, SK_EV74_OFF_COUNT, d->count, 8);
    put(b, SK_EV74_OFF_INPUT_SPAN, d->input_span, 8);
    put(b, SK_EV74_OFF_OUTPUT_SPAN, d->output_span, 8);
    for (int a = 0; a < SK_EV74_MAX_RANK; ++a) {
        put(b, SK_EV74_OFF_EXTENTS + 8 * a, d->extent[a], 8);
        put(b, SK_EV74_OFF_INPUT_STRIDES + 8 * a, d->input_stride[a], 8);
        put(b, SK_EV74_OFF_OUTPUT_STRIDES + 8 * a, d->output_stride[a], 8);
    }
    put(b, SK_EV74_OFF_MULTIPLIER, d->multiplier_bits, 4);
    put(b, SK_EV74_OFF_ZERO_POINT, (uint32_t)d->zero_point, 4);
    put(b, SK_EV74_OFF_ROUNDING, d->rounding, 4);
}

static int cmp_u64(const void *x, const void *y) {
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* Accessed bytes of one port; for small tensors, also proves that every
 * element has its own `item` bytes (sorted offsets at least `item` apart). */
static unsigned __int128 port_span(const sk_ev74_descriptor *d, const uint64_t *stride, uint64_t item) {
    if (d->count == 0) return 0;
    unsigned __int128 span = item;
    for (uint32_t a = 0; a < d->rank; ++a) span += (unsigned __int128)(d->extent[a] - 1) * stride[a];
    if (d->count <= 4096) {
        uint64_t *offsets = malloc(sizeof *offsets * d->count);
        CHECK(offsets, "out of memory");
        for (uint64_t i = 0; i < d->count; ++i) {
            uint64_t rest = i, off = 0;
            for (int a = (int)d->rank - 1; a >= 0; --a) {
                off += (rest % d->extent[a]) * stride[a];
                rest /= d->extent[a];
            }
            offsets[i] = off;
        }
        qsort(offsets, d->count, sizeof *offsets, cmp_u64);
        for (uint64_t i = 1; i < d->count; ++i)
            CHECK(offsets[i] - offsets[i - 1] >= item, "accepted overlapping elements");
        CHECK(offsets[d->count - 1] + item == span, "span is not the last element's end");
        free(offsets);
    }
    return span;
}

static void check_accepted(const sk_ev74_descriptor *d, const uint8_t *data) {
    uint8_t again[SK_EV74_DESCRIPTOR_SIZE];
    encode(d, again);
    CHECK(memcmp(again, data, sizeof again) == 0, "decoded fields do not re-encode to the input");
    CHECK(d->conversion <= SK_QUANT_F16 && d->rounding <= SK_QUANT_TOWARD_NEGATIVE, "conversion or rounding code");
    CHECK(d->entry == (int32_t)(d->conversion * 4 + d->rounding), "entry");
    CHECK(d->rank >= 1 && d->rank <= SK_EV74_MAX_RANK, "rank");
    CHECK((d->flags & ~1u) == 0, "reserved flags");
    if (d->flags & SK_EV74_FLAG_SCALAR) CHECK(d->rank == 1 && d->extent[0] == 1, "lowered scalar");
    const uint32_t m = d->multiplier_bits;
    CHECK(m != 0 && !(m >> 31) && ((m >> 23) & 0xff) != 0xff, "multiplier not finite positive");
    CHECK(d->zero_point >= -128 && d->zero_point <= 127, "zero point");
    /* The product of the extents (0 if any is 0), saturated at the domain. */
    unsigned __int128 count = 1;
    for (uint32_t a = 0; a < d->rank; ++a) {
        count *= d->extent[a];
        if (count > DOMAIN) count = DOMAIN;
    }
    CHECK(count < DOMAIN, "count beyond the domain");
    for (uint32_t a = 0; a < SK_EV74_MAX_RANK; ++a) {
        if (a >= d->rank) {
            CHECK(!d->extent[a] && !d->input_stride[a] && !d->output_stride[a], "unused axis");
            continue;
        }
        CHECK(d->extent[a] < DOMAIN, "extent beyond the domain");
        if (d->count == 0) CHECK(!d->input_stride[a] && !d->output_stride[a], "strides of an empty tensor");
        if (d->count && d->extent[a] <= 1) CHECK(!d->input_stride[a] && !d->output_stride[a], "singleton stride");
    }
    CHECK(count == d->count, "count is not the product of the extents");
    const uint64_t item = d->conversion == SK_QUANT_F32 ? 4 : 2;
    for (uint32_t a = 0; a < d->rank; ++a) CHECK(d->input_stride[a] % item == 0, "input stride alignment");
    const unsigned __int128 in_span = port_span(d, d->input_stride, item);
    const unsigned __int128 out_span = port_span(d, d->output_stride, 1);
    CHECK(in_span == d->input_span && out_span == d->output_span, "spans");
    const uint64_t ia = d->input_address, oa = d->output_address;
    CHECK((ia == 0) == (oa == 0) && d->bound == (ia != 0), "relocation slots");
    CHECK(ia + in_span <= DOMAIN && oa + out_span <= DOMAIN, "ranges leave the domain");
    CHECK(ia % item == 0, "input address alignment");
    if (d->bound && d->count) CHECK(ia + in_span <= oa || oa + out_span <= ia, "bound ranges overlap");
}

static void check_message(const char *message, size_t capacity) {
    CHECK(memchr(message, '\0', capacity) != NULL && message[0] != '\0', "rejection message empty or not terminated");
    CHECK(strstr(message, "field") || strstr(message, "descriptor length") || strstr(message, "unused axis"),
          "rejection message names no field");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t *bytes = malloc(size ? size : 1); /* exact size: ASan sees any over-read */
    CHECK(bytes, "out of memory");
    memcpy(bytes, data, size);
    sk_ev74_descriptor d;
    char message[256];
    memset(message, 'x', sizeof message);
    const int status = sk_ev74_decode(bytes, size, &d, message, sizeof message);
    CHECK(status == SK_OK || status == SK_INVALID_DESCRIPTOR, "status");
    if (status == SK_OK) {
        CHECK(message[0] == '\0', "message on success");
        check_accepted(&d, bytes);
    } else {
        check_message(message, sizeof message);
    }
    /* Again with a small message buffer (the capacity from the input). */
    const size_t capacity = size ? data[size - 1] % 9 : 0;
    char *small = capacity ? malloc(capacity) : NULL;
    sk_ev74_descriptor d2;
    const int status2 = sk_ev74_decode(bytes, size, &d2, small, capacity);
    CHECK(status2 == status, "status depends on the message capacity");
    if (capacity) CHECK(memchr(small, '\0', capacity) != NULL, "truncated message not terminated");
    if (status == SK_OK) CHECK(memcmp(&d, &d2, sizeof d) == 0, "decoded fields depend on the message capacity");
    free(small);
    free(bytes);
    return 0;
}
