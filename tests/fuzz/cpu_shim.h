/* See cpu_shim.c: the fuzz build routes route.c's CPU-feature queries here. */
int sk_fuzz_cpu_supports(const char *feature);
