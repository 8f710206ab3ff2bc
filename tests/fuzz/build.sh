#!/usr/bin/env bash
# Builds the libFuzzer targets into DIR (default build/fuzz) with clang 15,
# AddressSanitizer and UBSan (any report aborts):
#   ev74_decode  - csrc/ev74/decode.c alone
#   a65_execute  - the whole C core; the AVX2/AVX-512 files get the -m flags
#                  of their route's feature list in csrc/common/isa.h (clang
#                  ignores the GCC target regions), route.c the CPU-feature
#                  shim (cpu_shim.c).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build/fuzz}
mkdir -p "$out/obj"
CC=clang-15
common=(-g -O1 -std=c11 -ffp-contract=off -fno-fast-math -fno-sanitize-recover=all -Icsrc/include)
core=(-fsanitize=fuzzer-no-link,address,undefined -Wall -Wextra -Wno-unused-parameter -Wno-unknown-pragmas
      -DSK_VERSION='"fuzz"' -DSK_SOURCE_DIGEST='"fuzz"' -DSK_BUILD_FLAGS='"fuzz"')
harness=(-fsanitize=fuzzer,address,undefined -Wall -Wextra -Werror)

$CC "${common[@]}" "${harness[@]}" tests/fuzz/ev74_decode.c csrc/ev74/decode.c -o "$out/ev74_decode"

# -m flags of a route's feature list (SK_ISA_<ROUTE> in csrc/common/isa.h).
isa_flags() {
    local word
    for word in $(sed -n "s/^#define SK_ISA_$1(X) //p" csrc/common/isa.h); do
        case "$word" in
            SK_ISA_*) isa_flags "$(echo "$word" | sed 's/^SK_ISA_//; s/(X)$//')" ;;
            X\(*\)) echo "-m$(echo "$word" | sed 's/^X(//; s/)$//')" ;;
        esac
    done
}
read -r -a avx512_flags <<< "$(isa_flags AVX512 | tr '\n' ' ')"
read -r -a avx2_flags <<< "$(isa_flags AVX2 | tr '\n' ' ')"

objects=()
for src in $(find csrc -name '*.c' | sort); do
    obj="$out/obj/$(echo "$src" | tr / _).o"
    extra=()
    case "$src" in
        *_avx512.c) extra=("${avx512_flags[@]}") ;;
        *_avx2.c) extra=("${avx2_flags[@]}") ;;
        */route.c) extra=('-D__builtin_cpu_supports(f)=sk_fuzz_cpu_supports(f)' -include tests/fuzz/cpu_shim.h) ;;
    esac
    $CC "${common[@]}" "${core[@]}" "${extra[@]}" -c "$src" -o "$obj"
    objects+=("$obj")
done
$CC "${common[@]}" "${harness[@]}" tests/fuzz/a65_execute.c tests/fuzz/cpu_shim.c "${objects[@]}" -lm -o "$out/a65_execute"
echo "built $out/ev74_decode $out/a65_execute"
