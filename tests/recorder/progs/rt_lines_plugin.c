/* The plugin rt_lines dlopens and dlcloses in a loop while it is sampled. */
__attribute__((visibility("default"))) double rt_plugin_burn(long n) {
    double s = 0;
    for (long i = 0; i < n; i++)
        s += (double)(i % 13) * 0.5;
    return s;
}
