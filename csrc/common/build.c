/* Build identity. */
#include "../include/simakernels.h"

#if !defined(SK_VERSION) || !defined(SK_SOURCE_DIGEST) || !defined(SK_BUILD_FLAGS)
#error "the builder (csrc/ffi_build.py) defines SK_VERSION, SK_SOURCE_DIGEST and SK_BUILD_FLAGS"
#endif

const char *sk_version(void) { return SK_VERSION; }
const char *sk_source_digest(void) { return SK_SOURCE_DIGEST; }
const char *sk_build_flags(void) { return SK_BUILD_FLAGS; }
const char *sk_compiler(void) {
#if defined(__clang__)
    return "clang " __clang_version__;
#elif defined(__GNUC__)
    return "gcc " __VERSION__;
#else
    return "unknown C compiler";
#endif
}
