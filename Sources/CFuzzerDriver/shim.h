// libFuzzer's driver entry point (compiler-rt, `libclang_rt.fuzzer_no_main`): runs the fuzzing
// loop with `callback` as the target. Only bin/fuzz links the library and defines MDOC_FUZZ;
// the normal build declares the function and never calls it.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
