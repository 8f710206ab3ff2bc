/* ev74_case: one EV74 conformance case, for firmware engineers without Python.
 *
 * A kit from `python -m simakernels ev74-vectors OUT [--quick]` holds OUT/manifest.json (one case per line) and,
 * per case, the whole input region and the whole output region before (initial) and after (expected) the run.
 * This program finds case CASE_ID, decodes its bound 224-byte descriptor with the project's own decoder
 * (csrc/ev74/decode.c, the code the Python package runs), prints the fields a device run needs, checks that the
 * region files hold the accessed spans and, given RESULT_FILE (the whole output region a device dumped after
 * running the descriptor), compares it with the expected region byte for byte.
 *
 * Build from the repository root (gcc or clang; the decoder and the layout rules it calls, nothing else):
 *
 *   gcc -std=c11 -O2 -ffp-contract=off -Wall -Wextra -Werror -Icsrc/include \
 *       examples/ev74_case.c csrc/ev74/decode.c csrc/common/rules.c -o ev74_case
 *
 * Run: ./ev74_case OUT CASE_ID [RESULT_FILE]
 * Exit status: 0 printed (and RESULT_FILE matches), 1 RESULT_FILE differs (the first differing byte is named),
 * 2 usage error, missing or malformed case, unreadable file, or files that do not fit the descriptor. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "simakernels.h"

enum { NAME_MAX_LEN = 256, HEX_LEN = 2 * SK_EV74_DESCRIPTOR_SIZE, PATH_LEN = 4096 };

static const char *const CONVERSION[] = {[SK_QUANT_F32] = "FP32", [SK_QUANT_BF16] = "BF16", [SK_QUANT_F16] = "FP16"};
static const char *const ROUNDING[] = {[SK_QUANT_NEAREST_EVEN] = "nearest_even",
                                       [SK_QUANT_TOWARD_ZERO] = "toward_zero",
                                       [SK_QUANT_TOWARD_POSITIVE] = "toward_positive",
                                       [SK_QUANT_TOWARD_NEGATIVE] = "toward_negative"};

/* One case line of the manifest. */
typedef struct kit_case {
    char id[NAME_MAX_LEN], descriptor[HEX_LEN + 1], input[NAME_MAX_LEN], initial[NAME_MAX_LEN], expected[NAME_MAX_LEN];
    uint64_t input_address, output_address;
} kit_case;

typedef struct blob {
    unsigned char *data;
    size_t size;
} blob;

/* Reports an error on stderr; returns exit status 2. */
static int fail(const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    fputs("ev74_case: ", stderr);
    vfprintf(stderr, format, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

/* The whole file at `path` (a pipe too), NUL-terminated so that a text file is a C string: 0, or 2 after a message. */
static int load(const char *path, blob *b) {
    FILE *f = fopen(path, "rb");
    size_t capacity = 0;
    b->data = NULL;
    b->size = 0;
    while (f && b->size == capacity && !ferror(f)) {
        unsigned char *grown = realloc(b->data, 2 * capacity + 4096 + 1);
        if (!grown) break;
        b->data = grown;
        capacity = 2 * capacity + 4096;
        b->size += fread(b->data + b->size, 1, capacity - b->size, f);
    }
    const int ok = f && b->size < capacity && !ferror(f);
    const int error = errno;
    if (f) fclose(f);
    if (ok) {
        b->data[b->size] = '\0';
        return 0;
    }
    free(b->data);
    b->data = NULL;
    return fail("cannot read %s: %s", path, strerror(error));
}

/* The value of key `name` in [p, end): just past `"name":` and spaces, or NULL. */
static const char *key(const char *p, const char *end, const char *name) {
    const size_t n = strlen(name);
    for (; p + n + 2 < end; ++p)
        if (p[0] == '"' && strncmp(p + 1, name, n) == 0 && p[n + 1] == '"' && p[n + 2] == ':') {
            for (p += n + 3; p < end && *p == ' ';) ++p;
            return p;
        }
    return NULL;
}

/* A string value of [A-Za-z0-9._-] (ids, file names, hex) into out. */
static int text(const char *v, const char *end, char *out, size_t capacity) {
    size_t n = 0;
    if (!v || v == end || *v++ != '"') return 0;
    while (v < end && (isalnum((unsigned char)*v) || strchr("._-", *v)) && n + 1 < capacity) out[n++] = *v++;
    out[n] = '\0';
    return n > 0 && v < end && *v == '"';
}

/* A decimal value (an address) into out. */
static int number(const char *v, const char *end, uint64_t *out) {
    char *stop = NULL;
    if (v && v < end && isdigit((unsigned char)*v)) *out = strtoull(v, &stop, 10);
    return stop && stop <= end;
}

/* The flat object value of key `name` (no nested braces): [*open, *close). */
static int object(const char *p, const char *end, const char *name, const char **open, const char **close) {
    *open = key(p, end, name);
    *close = *open && *open < end && **open == '{' ? memchr(*open, '}', (size_t)(end - *open)) : NULL;
    return *close != NULL;
}

/* The manifest line of case `id`: 0, or 2 after a message. */
static int find_case(const char *manifest, const char *id, kit_case *c) {
    char format[NAME_MAX_LEN];
    const char *all = manifest + strlen(manifest);
    uint64_t version;
    if (!text(key(manifest, all, "format"), all, format, sizeof format) ||
        strcmp(format, "simakernels-ev74-vectors") != 0 || !number(key(manifest, all, "version"), all, &version) ||
        version != 1)
        return fail("manifest.json is not a version 1 simakernels-ev74-vectors manifest");
    for (const char *line = manifest; *line;) {
        const char *end = strchr(line, '\n');
        if (!end) end = all;
        if (text(key(line, end, "id"), end, c->id, sizeof c->id) && strcmp(c->id, id) == 0) {
            const char *in, *in_end, *out, *out_end;
            if (text(key(line, end, "descriptor"), end, c->descriptor, sizeof c->descriptor) &&
                strlen(c->descriptor) == HEX_LEN && object(line, end, "input", &in, &in_end) &&
                text(key(in, in_end, "file"), in_end, c->input, sizeof c->input) &&
                number(key(in, in_end, "address"), in_end, &c->input_address) &&
                object(line, end, "output", &out, &out_end) &&
                text(key(out, out_end, "initial"), out_end, c->initial, sizeof c->initial) &&
                text(key(out, out_end, "expected"), out_end, c->expected, sizeof c->expected) &&
                number(key(out, out_end, "address"), out_end, &c->output_address))
                return 0;
            return fail("manifest.json: malformed line for case %s (expected \"descriptor\": %d hex digits, "
                        "\"input\": {\"file\", \"address\"}, \"output\": {\"initial\", \"expected\", \"address\"})",
                        id, HEX_LEN);
        }
        line = *end ? end + 1 : end;
    }
    return fail("no case %s in manifest.json", id);
}

/* "[v0, v1, ...]" between `before` and `after`. */
static void print_axes(const char *before, uint32_t rank, const uint64_t *values, const char *after) {
    printf("%s[", before);
    for (uint32_t a = 0; a < rank; ++a) printf("%s%llu", a ? ", " : "", (unsigned long long)values[a]);
    printf("]%s", after);
}

/* Element 0 at `first` plus `span` bytes inside the region file; 0 or 2. */
static int fits(const char *id, const char *file, uint64_t region, size_t size, uint64_t first, uint64_t span) {
    if (first >= region && first - region <= size && span <= size - (first - region)) return 0;
    return fail("%s: %s (%zu bytes at 0x%08llx) does not hold the %llu-byte span of element 0 at 0x%08llx", id, file,
                size, (unsigned long long)region, (unsigned long long)span, (unsigned long long)first);
}

/* The index of the output element (INT8: one byte each) at byte `offset` from element 0, or 0 if no element
 * owns that byte.  The decoder has checked that the axes do not overlap: axes by decreasing stride find it. */
static int element_at(const sk_ev74_descriptor *d, uint64_t offset, uint64_t index[SK_EV74_MAX_RANK]) {
    unsigned done = 0;
    if (d->count == 0) return 0;
    for (uint32_t k = 0; k < d->rank; ++k) {
        uint32_t a = 0;
        while (done >> a & 1) ++a;
        for (uint32_t b = a + 1; b < d->rank; ++b)
            if (!(done >> b & 1) && d->output_stride[b] > d->output_stride[a]) a = b;
        done |= 1u << a;
        const uint64_t s = d->output_stride[a], i = s ? offset / s : 0;
        index[a] = i < d->extent[a] ? i : d->extent[a] - 1;
        offset -= index[a] * s;
    }
    return offset == 0;
}

static int compare(const kit_case *c, const sk_ev74_descriptor *d, const blob *expected, const blob *result,
                   const char *result_path) {
    if (result->size != expected->size)
        return fail("%s: %s has %zu bytes, expected %zu (the whole output region)", c->id, result_path, result->size,
                    expected->size);
    size_t first = 0, differ = 0;
    for (size_t i = 0; i < result->size; ++i)
        if (result->data[i] != expected->data[i] && differ++ == 0) first = i;
    if (differ == 0) {
        printf("ok %s: %zu bytes match\n", c->id, result->size);
        return 0;
    }
    const uint64_t address = c->output_address + first;
    printf("FAIL %s: offset %zu (device address 0x%08llx): expected 0x%02x found 0x%02x", c->id, first,
           (unsigned long long)address, expected->data[first], result->data[first]);
    uint64_t index[SK_EV74_MAX_RANK];
    if (address >= d->output_address && element_at(d, address - d->output_address, index))
        print_axes(", element ", d->rank, index, "");
    else
        printf(", a byte no element owns (gap or spare capacity: must come back unchanged)");
    printf("; %zu of %zu bytes differ\n", differ, result->size);
    return 1;
}

static int run(int argc, char **argv, blob files[4]) {
    const char *dir = argv[1], *id = argv[2];
    char path[PATH_LEN];
    kit_case c;
    blob manifest = {NULL, 0};
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    if (load(path, &manifest)) return 2;
    int status = find_case((const char *)manifest.data, id, &c);
    free(manifest.data);
    if (status) return status;

    static const char hex[] = "0123456789abcdef";
    uint8_t bytes[SK_EV74_DESCRIPTOR_SIZE];
    for (int i = 0; i < SK_EV74_DESCRIPTOR_SIZE; ++i) {
        const char *hi = strchr(hex, c.descriptor[2 * i]), *lo = strchr(hex, c.descriptor[2 * i + 1]);
        if (!hi || !lo) return fail("%s: the descriptor is not lowercase hex", id);
        bytes[i] = (uint8_t)((hi - hex) << 4 | (lo - hex));
    }
    sk_ev74_descriptor d;
    char message[256];
    if (sk_ev74_decode(bytes, sizeof bytes, &d, message, sizeof message) != SK_OK)
        return fail("%s: the decoder refuses the descriptor: %s", id, message);
    float multiplier;
    memcpy(&multiplier, &d.multiplier_bits, sizeof multiplier);

    printf("%-16s%s\n", "case", c.id);
    printf("%-16s%d: %s, %s\n", "entry", d.entry, CONVERSION[d.conversion], ROUNDING[d.rounding]);
    printf("%-16s%u\n", "rank", d.rank);
    print_axes("extents         ", d.rank, d.extent, "\n");
    print_axes("input_strides   ", d.rank, d.input_stride, " bytes\n");
    print_axes("output_strides  ", d.rank, d.output_stride, " bytes\n");
    printf("%-16s%llu\n", "count", (unsigned long long)d.count);
    printf("%-16s%llu bytes\n", "input_span", (unsigned long long)d.input_span);
    printf("%-16s%llu bytes\n", "output_span", (unsigned long long)d.output_span);
    printf("%-16s0x%08llx\n", "input_address", (unsigned long long)d.input_address);
    printf("%-16s0x%08llx\n", "output_address", (unsigned long long)d.output_address);
    printf("%-16s0x%08x (%.9g)\n", "multiplier", d.multiplier_bits, (double)multiplier);
    printf("%-16s%d\n", "zero_point", d.zero_point);
    printf("%-16s0x%x%s\n", "flags", d.flags,
           d.flags & SK_EV74_FLAG_SCALAR ? " (scalar: a rank-0 request lowered to rank 1)" : "");

    const char *names[3] = {c.input, c.initial, c.expected};
    for (int i = 0; i < 3; ++i) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (load(path, &files[i])) return 2;
    }
    printf("%-16s0x%08llx, %zu bytes (%s)\n", "input_region", (unsigned long long)c.input_address, files[0].size,
           c.input);
    printf("%-16s0x%08llx, %zu bytes (%s, %s)\n", "output_region", (unsigned long long)c.output_address, files[2].size,
           c.initial, c.expected);
    if (files[1].size != files[2].size) return fail("%s: %s and %s differ in size", id, c.initial, c.expected);
    if (fits(id, c.input, c.input_address, files[0].size, d.input_address, d.input_span) ||
        fits(id, c.expected, c.output_address, files[2].size, d.output_address, d.output_span))
        return 2;
    if (argc < 4) return 0;
    if (load(argv[3], &files[3])) return 2;
    return compare(&c, &d, &files[2], &files[3], argv[3]);
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4) return fail("usage: ev74_case OUT CASE_ID [RESULT_FILE]");
    blob files[4] = {{NULL, 0}, {NULL, 0}, {NULL, 0}, {NULL, 0}}; /* input, initial, expected, result */
    const int status = run(argc, argv, files);
    for (int i = 0; i < 4; ++i) free(files[i].data);
    return status;
}
