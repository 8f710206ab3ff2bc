/* EV74 native descriptor decoder: the shared validation (validate.h, which
 * the kernel runs too) and the words of its refusals: the first violation
 * is reported with the field's name and offset, both from the field table
 * (fields.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "../common/kernel.h"
#include "control.h"
#include "fields.h"
#include "validate.h"

/* The wire layout, in order (fields.h). */
#define SK_EV74_ENTRY(name, NAME, size, count, is_signed) {#name, SK_EV74_OFF_##NAME, size, count, is_signed},
static const sk_ev74_field FIELDS[] = {SK_EV74_FIELDS(SK_EV74_ENTRY)};
_Static_assert(sizeof FIELDS / sizeof FIELDS[0] == SK_EV74_FIELD_COUNT, "SK_EV74_FIELD_COUNT fields");

const sk_ev74_field *sk_ev74_field_at(int index) {
    return index >= 0 && index < SK_EV74_FIELD_COUNT ? &FIELDS[index] : NULL;
}

/* The field that starts at `offset` (one of the SK_EV74_OFF_ constants). */
static const sk_ev74_field *field(int offset) {
    int i = 0;
    while (i + 1 < SK_EV74_FIELD_COUNT && FIELDS[i].offset != offset) ++i;
    return &FIELDS[i];
}

/* The offset of element `index` of the field at `offset`. */
static int element(int offset, int index) { return offset + field(offset)->size * index; }

static int say(char *message, size_t capacity, int status, const char *fmt, ...) {
    if (capacity) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(message, capacity, fmt, ap);
        va_end(ap);
    }
    return status;
}

/* "field NAME (offset N): " of the field at `offset` (element `index` of an
 * array field: "field NAME[index] (offset N): "; -1: a scalar field), then
 * the rest of the message. */
static int say_field(char *message, size_t capacity, int status, int offset, int index, const char *fmt, ...) {
    const sk_ev74_field *f = field(offset);
    const int n =
        index < 0 ? snprintf(message, capacity, "field %s (offset %d): ", f->name, offset)
                  : snprintf(message, capacity, "field %s[%d] (offset %d): ", f->name, index, element(offset, index));
    if (n >= 0 && (size_t)n < capacity) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(message + n, capacity - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return status;
}

#define SAY(...) return say(message, capacity, why->status, __VA_ARGS__)
#define SAY_FIELD(offset, index, ...) return say_field(message, capacity, why->status, offset, index, __VA_ARGS__)
typedef unsigned long long ull;

static const char *const PORT_NAME[2] = {"input", "output"};
static const int ADDRESS[2] = {SK_EV74_OFF_INPUT_ADDRESS, SK_EV74_OFF_OUTPUT_ADDRESS};
static const int SPAN[2] = {SK_EV74_OFF_INPUT_SPAN, SK_EV74_OFF_OUTPUT_SPAN};
static const int STRIDES[2] = {SK_EV74_OFF_INPUT_STRIDES, SK_EV74_OFF_OUTPUT_STRIDES};

/* A port's layout fault, naming the descriptor field. */
static int explain_layout(const sk_ev74_why *why, char *message, size_t capacity) {
    const int a = why->axis, strides = STRIDES[why->port ? 1 : 0];
    const ull value = why->value[0], limit = why->value[1], stride = why->value[2], extra = why->value[3];
    switch (why->rule) {
    case SK_RULE_EXTENT_LIMIT:
        SAY_FIELD(SK_EV74_OFF_EXTENTS, a, "%llu is beyond the device domain", value);
    case SK_RULE_NOT_NORMALISED:
        if (extra == 0) SAY_FIELD(strides, a, "%llu on an empty tensor, expected 0", value);
        SAY_FIELD(strides, a, "singleton axis stride %llu is not normalised to 0", value);
    case SK_RULE_STRIDE_MULTIPLE:
        SAY_FIELD(strides, a, "%llu is not a multiple of the %llu-byte element", value, limit);
    case SK_RULE_BROADCAST:
        SAY_FIELD(strides, a, "zero stride on an axis of extent %llu", value);
    case SK_RULE_SPAN_LIMIT:
        SAY_FIELD(strides, a, "accessed span %llu + %llu x %llu exceeds the 32-bit device domain", value, extra - 1,
                  stride);
    case SK_RULE_AXES_OVERLAP:
        SAY_FIELD(strides, a, "%llu overlaps the %llu bytes of faster axes", value, limit);
    default: /* a negative stride (>= 2^63 on the wire) or one beyond the domain */
        SAY_FIELD(strides, a, "%llu is beyond the 32-bit device domain", stride);
    }
}

int sk_ev74_explain(const sk_ev74_why *why, char *message, size_t capacity) {
    if (capacity) message[0] = '\0';
    const ull *v = (const ull *)why->value;
    const int a = why->axis, p = why->port ? 1 : 0;
    const char *const input = field(SK_EV74_OFF_INPUT_ADDRESS)->name, *const output =
                                                                          field(SK_EV74_OFF_OUTPUT_ADDRESS)->name;
    switch (why->check) {
    case SK_EV74_CHECK_NONE:
        return why->status;
    case SK_EV74_CHECK_LENGTH:
        SAY("descriptor length %llu, expected %d bytes", v[0], SK_EV74_DESCRIPTOR_SIZE);
    case SK_EV74_CHECK_MAGIC:
        SAY_FIELD(SK_EV74_OFF_MAGIC, -1, "%#llx, expected %#x", v[0], SK_EV74_MAGIC);
    case SK_EV74_CHECK_VERSION:
        SAY_FIELD(SK_EV74_OFF_VERSION, -1, "%llu, expected %d", v[0], SK_EV74_VERSION);
    case SK_EV74_CHECK_BYTE_LENGTH:
        SAY_FIELD(SK_EV74_OFF_LENGTH, -1, "%llu, expected %d", v[0], SK_EV74_DESCRIPTOR_SIZE);
    case SK_EV74_CHECK_CONVERSION:
        SAY_FIELD(SK_EV74_OFF_CONVERSION, -1, "%llu, expected %d (FP32), %d (BF16) or %d (FP16)", v[0], SK_QUANT_F32,
                  SK_QUANT_BF16, SK_QUANT_F16);
    case SK_EV74_CHECK_RANK:
        SAY_FIELD(SK_EV74_OFF_RANK, -1, "%llu, expected 1..%d", v[0], SK_EV74_MAX_RANK);
    case SK_EV74_CHECK_FLAGS:
        SAY_FIELD(SK_EV74_OFF_FLAGS, -1, "%#llx has reserved bits set", v[0]);
    case SK_EV74_CHECK_RESERVED: /* either reserved word, by its offset */
        SAY("field reserved (offset %llu): %#llx, expected 0", v[1], v[0]);
    case SK_EV74_CHECK_MULTIPLIER:
        SAY_FIELD(SK_EV74_OFF_MULTIPLIER, -1, "bits %#010llx are not a finite positive binary32", v[0]);
    case SK_EV74_CHECK_ZERO_POINT:
        SAY_FIELD(SK_EV74_OFF_ZERO_POINT, -1, "%lld is outside [%d, %d]", (long long)v[0], SK_QUANT_ZERO_POINT_LEAST,
                  SK_QUANT_ZERO_POINT_GREATEST);
    case SK_EV74_CHECK_ROUNDING:
        SAY_FIELD(SK_EV74_OFF_ROUNDING, -1, "%llu, expected 0..%d", v[0], SK_QUANT_TOWARD_NEGATIVE);
    case SK_EV74_CHECK_UNUSED_AXIS:
        SAY("unused axis %d (offsets %d/%d/%d): extent %llu, strides %llu/%llu, expected 0", a,
            element(SK_EV74_OFF_EXTENTS, a), element(SK_EV74_OFF_INPUT_STRIDES, a),
            element(SK_EV74_OFF_OUTPUT_STRIDES, a), v[0], v[1], v[2]);
    case SK_EV74_CHECK_SCALAR:
        SAY_FIELD(SK_EV74_OFF_FLAGS, -1, "a lowered scalar must have rank 1 and extent 1, got rank %llu, extent %llu",
                  v[0], v[1]);
    case SK_EV74_CHECK_COUNT_LIMIT:
        SAY_FIELD(SK_EV74_OFF_EXTENTS, a, "%llu takes the element count beyond the device domain", v[0]);
    case SK_EV74_CHECK_COUNT:
        SAY_FIELD(SK_EV74_OFF_COUNT, -1, "%llu, but the extents hold %llu elements", v[0], v[1]);
    case SK_EV74_CHECK_LAYOUT:
        return explain_layout(why, message, capacity);
    case SK_EV74_CHECK_SPAN:
        SAY_FIELD(SPAN[p], -1, "%llu, but the extents and strides access %llu bytes", v[0], v[1]);
    case SK_EV74_CHECK_HALF_BOUND:
        SAY_FIELD(ADDRESS[p], -1, "0 while %s is %#llx: one relocation slot is bound and the other is not",
                  field(ADDRESS[!p])->name, v[0]);
    case SK_EV74_CHECK_ADDRESS:
        SAY_FIELD(ADDRESS[p], -1, "%#llx is beyond the 32-bit device domain", v[0]);
    case SK_EV74_CHECK_BINDING:
        switch (why->rule) {
        case SK_RULE_MISALIGNED:
            SAY_FIELD(ADDRESS[p], -1, "%#llx is not %llu-byte aligned", v[0], v[1]);
        case SK_RULE_PORTS_OVERLAP: /* value: the output's address, the input's */
            SAY("fields %s/%s (offsets %d/%d): accessed ranges [%#llx, +%llu) and [%#llx, +%llu) overlap", input,
                output, ADDRESS[0], ADDRESS[1], v[1], v[2], v[0], v[3]);
        default: /* beyond the domain (a null or short view cannot occur: both slots are set, views are the spans) */
            SAY_FIELD(ADDRESS[p], -1, "%#llx + %llu bytes leaves the 32-bit device domain", v[0], p ? v[3] : v[2]);
        }
    case SK_EV74_CHECK_UNBOUND:
        SAY("packet fields %s and %s are 0 (relocatable): bind it to device regions first", input, output);
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
