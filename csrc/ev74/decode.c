/* EV74 native descriptor decoder: the shared validation (validate.h, which
 * the kernel runs too) and the words of its refusals: the first violation
 * is reported with the field's name and offset. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "../common/kernel.h"
#include "control.h"
#include "validate.h"

/* The wire layout, in order (the offsets are the header's). */
static const sk_ev74_field FIELDS[SK_EV74_FIELD_COUNT] = {
    {"magic", SK_EV74_OFF_MAGIC, 4, 1, 0},
    {"version", SK_EV74_OFF_VERSION, 2, 1, 0},
    {"length", SK_EV74_OFF_LENGTH, 2, 1, 0},
    {"conversion", SK_EV74_OFF_CONVERSION, 4, 1, 0},
    {"rank", SK_EV74_OFF_RANK, 4, 1, 0},
    {"flags", SK_EV74_OFF_FLAGS, 4, 1, 0},
    {"reserved0", SK_EV74_OFF_RESERVED0, 4, 1, 0},
    {"input_address", SK_EV74_OFF_INPUT_ADDRESS, 8, 1, 0},
    {"output_address", SK_EV74_OFF_OUTPUT_ADDRESS, 8, 1, 0},
    {"count", SK_EV74_OFF_COUNT, 8, 1, 0},
    {"input_span", SK_EV74_OFF_INPUT_SPAN, 8, 1, 0},
    {"output_span", SK_EV74_OFF_OUTPUT_SPAN, 8, 1, 0},
    {"extents", SK_EV74_OFF_EXTENTS, 8, SK_EV74_MAX_RANK, 0},
    {"input_strides", SK_EV74_OFF_INPUT_STRIDES, 8, SK_EV74_MAX_RANK, 0},
    {"output_strides", SK_EV74_OFF_OUTPUT_STRIDES, 8, SK_EV74_MAX_RANK, 0},
    {"multiplier", SK_EV74_OFF_MULTIPLIER, 4, 1, 0},
    {"zero_point", SK_EV74_OFF_ZERO_POINT, 4, 1, 1},
    {"rounding", SK_EV74_OFF_ROUNDING, 4, 1, 0},
    {"reserved1", SK_EV74_OFF_RESERVED1, 4, 1, 0},
};

const sk_ev74_field *sk_ev74_field_at(int index) {
    return index >= 0 && index < SK_EV74_FIELD_COUNT ? &FIELDS[index] : NULL;
}

static int say(char *message, size_t capacity, int status, const char *fmt, ...) {
    if (capacity) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(message, capacity, fmt, ap);
        va_end(ap);
    }
    return status;
}

#define SAY(...) return say(message, capacity, why->status, __VA_ARGS__)
typedef unsigned long long ull;

static const char *const PORT_NAME[2] = {"input", "output"};
static const char *const ADDRESS_NAME[2] = {"input_address", "output_address"};
static const int ADDRESS_OFFSET[2] = {SK_EV74_OFF_INPUT_ADDRESS, SK_EV74_OFF_OUTPUT_ADDRESS};

/* A port's layout fault, naming the descriptor field. */
static int explain_layout(const sk_ev74_why *why, char *message, size_t capacity) {
    const int a = why->axis, p = why->port ? 1 : 0;
    const char *name = PORT_NAME[p];
    const int off = (p ? SK_EV74_OFF_OUTPUT_STRIDES : SK_EV74_OFF_INPUT_STRIDES) + 8 * a;
    const ull value = why->value[0], limit = why->value[1], stride = why->value[2], extra = why->value[3];
    switch (why->rule) {
    case SK_RULE_EXTENT_LIMIT:
        SAY("field extents[%d] (offset %d): %llu is beyond the device domain", a, SK_EV74_OFF_EXTENTS + 8 * a, value);
    case SK_RULE_NOT_NORMALISED:
        if (extra == 0)
            SAY("field %s_strides[%d] (offset %d): %llu on an empty tensor, expected 0", name, a, off, value);
        SAY("field %s_strides[%d] (offset %d): singleton axis stride %llu is not normalised to 0", name, a, off, value);
    case SK_RULE_STRIDE_MULTIPLE:
        SAY("field %s_strides[%d] (offset %d): %llu is not a multiple of the %llu-byte element", name, a, off, value,
            limit);
    case SK_RULE_BROADCAST:
        SAY("field %s_strides[%d] (offset %d): zero stride on an axis of extent %llu", name, a, off, value);
    case SK_RULE_SPAN_LIMIT:
        SAY("field %s_strides[%d] (offset %d): accessed span %llu + %llu x %llu exceeds the 32-bit device domain", name,
            a, off, value, extra - 1, stride);
    case SK_RULE_AXES_OVERLAP:
        SAY("field %s_strides[%d] (offset %d): %llu overlaps the %llu bytes of faster axes", name, a, off, value,
            limit);
    default: /* a negative stride (>= 2^63 on the wire) or one beyond the domain */
        SAY("field %s_strides[%d] (offset %d): %llu is beyond the 32-bit device domain", name, a, off, stride);
    }
}

int sk_ev74_explain(const sk_ev74_why *why, char *message, size_t capacity) {
    if (capacity) message[0] = '\0';
    const ull *v = (const ull *)why->value;
    const int a = why->axis, p = why->port ? 1 : 0;
    switch (why->check) {
    case SK_EV74_CHECK_NONE:
        return why->status;
    case SK_EV74_CHECK_LENGTH:
        SAY("descriptor length %llu, expected 224 bytes", v[0]);
    case SK_EV74_CHECK_MAGIC:
        SAY("field magic (offset 0): %#llx, expected %#x", v[0], SK_EV74_MAGIC);
    case SK_EV74_CHECK_VERSION:
        SAY("field version (offset 4): %llu, expected 1", v[0]);
    case SK_EV74_CHECK_BYTE_LENGTH:
        SAY("field length (offset 6): %llu, expected 224", v[0]);
    case SK_EV74_CHECK_CONVERSION:
        SAY("field conversion (offset 8): %llu, expected 0 (FP32), 1 (BF16) or 2 (FP16)", v[0]);
    case SK_EV74_CHECK_RANK:
        SAY("field rank (offset 12): %llu, expected 1..6", v[0]);
    case SK_EV74_CHECK_FLAGS:
        SAY("field flags (offset 16): %#llx has reserved bits set", v[0]);
    case SK_EV74_CHECK_RESERVED:
        SAY("field reserved (offset %llu): %#llx, expected 0", v[1], v[0]);
    case SK_EV74_CHECK_MULTIPLIER:
        SAY("field multiplier (offset 208): bits %#010llx are not a finite positive binary32", v[0]);
    case SK_EV74_CHECK_ZERO_POINT:
        SAY("field zero_point (offset 212): %lld is outside [-128, 127]", (long long)v[0]);
    case SK_EV74_CHECK_ROUNDING:
        SAY("field rounding (offset 216): %llu, expected 0..3", v[0]);
    case SK_EV74_CHECK_UNUSED_AXIS:
        SAY("unused axis %d (offsets %d/%d/%d): extent %llu, strides %llu/%llu, expected 0", a,
            SK_EV74_OFF_EXTENTS + 8 * a, SK_EV74_OFF_INPUT_STRIDES + 8 * a, SK_EV74_OFF_OUTPUT_STRIDES + 8 * a, v[0],
            v[1], v[2]);
    case SK_EV74_CHECK_SCALAR:
        SAY("field flags (offset 16): a lowered scalar must have rank 1 and extent 1, got rank %llu, extent %llu", v[0],
            v[1]);
    case SK_EV74_CHECK_COUNT_LIMIT:
        SAY("field extents[%d] (offset %d): %llu takes the element count beyond the device domain", a,
            SK_EV74_OFF_EXTENTS + 8 * a, v[0]);
    case SK_EV74_CHECK_COUNT:
        SAY("field count (offset 40): %llu, but the extents hold %llu elements", v[0], v[1]);
    case SK_EV74_CHECK_LAYOUT:
        return explain_layout(why, message, capacity);
    case SK_EV74_CHECK_SPAN:
        SAY("field %s_span (offset %d): %llu, but the extents and strides access %llu bytes", PORT_NAME[p],
            p ? SK_EV74_OFF_OUTPUT_SPAN : SK_EV74_OFF_INPUT_SPAN, v[0], v[1]);
    case SK_EV74_CHECK_HALF_BOUND:
        SAY("field %s (offset %d): 0 while %s is %#llx: one relocation slot is bound and the other is not",
            ADDRESS_NAME[p], ADDRESS_OFFSET[p], ADDRESS_NAME[!p], v[0]);
    case SK_EV74_CHECK_ADDRESS:
        SAY("field %s (offset %d): %#llx is beyond the 32-bit device domain", ADDRESS_NAME[p], ADDRESS_OFFSET[p], v[0]);
    case SK_EV74_CHECK_BINDING:
        switch (why->rule) {
        case SK_RULE_MISALIGNED:
            SAY("field %s (offset %d): %#llx is not %llu-byte aligned", ADDRESS_NAME[p], ADDRESS_OFFSET[p], v[0], v[1]);
        case SK_RULE_PORTS_OVERLAP: /* value: the output's address, the input's */
            SAY("fields input_address/output_address (offsets 24/32): accessed ranges [%#llx, +%llu) and "
                "[%#llx, +%llu) overlap",
                v[1], v[2], v[0], v[3]);
        default: /* beyond the domain (a null or short view cannot occur: both slots are set, views are the spans) */
            SAY("field %s (offset %d): %#llx + %llu bytes leaves the 32-bit device domain", ADDRESS_NAME[p],
                ADDRESS_OFFSET[p], v[0], p ? v[3] : v[2]);
        }
    case SK_EV74_CHECK_UNBOUND:
        SAY("packet fields input_address and output_address are 0 (relocatable): bind it to device regions first");
    case SK_EV74_CHECK_MEMORY:
        SAY("%s range %#llx + %llu is not device memory", PORT_NAME[p], v[0], v[1]);
    default:
        SAY("refused by check %d", why->check);
    }
}

int sk_ev74_decode(const uint8_t *b, size_t length, sk_ev74_descriptor *d, char *message, size_t capacity) {
    sk_ev74_why why;
    const int status = sk_ev74_validate(b, length, d, &why);
    if (status != SK_OK) return sk_ev74_explain(&why, message, capacity);
    if (capacity) message[0] = '\0';
    return status;
}

int sk_ev74_admit(const sk_ev74_descriptor *d, uint64_t base, uint64_t size, char *message, size_t capacity) {
    sk_ev74_why why;
    const int status = sk_ev74_validate_memory(d, base, size, &why);
    if (status != SK_OK) return sk_ev74_explain(&why, message, capacity);
    if (capacity) message[0] = '\0';
    return SK_OK;
}

int sk_ev74_control_read(const uint8_t *control, uint64_t length, uint32_t *units, uint32_t *workgroups,
                         uint32_t *input_slots, uint32_t *output_slots, char *message, size_t capacity) {
    if (capacity) message[0] = '\0';
    if (length != sizeof(sk_ev74_control)) {
        say(message, capacity, 0, "control record of %llu bytes, expected %d", (ull)length, SK_EV74_CONTROL_SIZE);
        return SK_INVALID_OPERATION;
    }
    sk_ev74_control c;
    memcpy(&c, control, sizeof c);
    *units = c.units;
    *workgroups = c.workgroups;
    *input_slots = 2 * SK_EV74_INPUT_SLOT_BYTES;
    *output_slots = 2 * (c.kind == SK_EV74_UNIT_DMA ? c.block : 1); /* one byte per element */
    return c.why.status == SK_OK ? SK_OK : sk_ev74_explain(&c.why, message, capacity);
}
