/* The EV74 descriptor's field table, written once, in wire order: the
 * field's name, its offset constant (simakernels.h, the API's numbers),
 * element bytes, elements, signedness.  The decoder's table
 * (sk_ev74_field_at, from which simakernels/ev74/descriptor.py builds its
 * layout and packs by name) and the words of its refusals come from it, the
 * validation (validate.h) reads each field by its width, and both compilers
 * assert that the fields tile the 224 bytes at the API's offsets.
 * Portable C: the kernel's OpenCL C program includes it too. */
#ifndef SK_EV74_FIELDS_H
#define SK_EV74_FIELDS_H
#include "../include/simakernels.h"

/* clang-format off */
#define SK_EV74_FIELDS(X) \
    X(magic, MAGIC, 4, 1, 0) X(version, VERSION, 2, 1, 0) X(length, LENGTH, 2, 1, 0) \
    X(conversion, CONVERSION, 4, 1, 0) X(rank, RANK, 4, 1, 0) X(flags, FLAGS, 4, 1, 0) \
    X(reserved0, RESERVED0, 4, 1, 0) X(input_address, INPUT_ADDRESS, 8, 1, 0) \
    X(output_address, OUTPUT_ADDRESS, 8, 1, 0) X(count, COUNT, 8, 1, 0) X(input_span, INPUT_SPAN, 8, 1, 0) \
    X(output_span, OUTPUT_SPAN, 8, 1, 0) X(extents, EXTENTS, 8, SK_EV74_MAX_RANK, 0) \
    X(input_strides, INPUT_STRIDES, 8, SK_EV74_MAX_RANK, 0) X(output_strides, OUTPUT_STRIDES, 8, SK_EV74_MAX_RANK, 0) \
    X(multiplier, MULTIPLIER, 4, 1, 0) X(zero_point, ZERO_POINT, 4, 1, 1) X(rounding, ROUNDING, 4, 1, 0) \
    X(reserved1, RESERVED1, 4, 1, 0)
/* clang-format on */

/* Each field's element width: SK_EV74_WIDTH_<NAME>. */
#define SK_EV74_WIDTH_OF(name, NAME, size, count, is_signed) SK_EV74_WIDTH_##NAME = size,
enum sk_ev74_width { SK_EV74_FIELDS(SK_EV74_WIDTH_OF) };

/* The wire as a byte struct: its member offsets are the table's. */
#define SK_EV74_MEMBER(name, NAME, size, count, is_signed) uint8_t name[(size) * (count)];
typedef struct sk_ev74_wire {
    SK_EV74_FIELDS(SK_EV74_MEMBER)
} sk_ev74_wire;
#define SK_EV74_AT(name, NAME, size, count, is_signed) \
    _Static_assert(__builtin_offsetof(sk_ev74_wire, name) == SK_EV74_OFF_##NAME, "EV74 descriptor field " #name);
SK_EV74_FIELDS(SK_EV74_AT)
_Static_assert(sizeof(sk_ev74_wire) == SK_EV74_DESCRIPTOR_SIZE, "the EV74 descriptor is 224 bytes");

#endif
