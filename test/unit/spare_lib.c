/* spare_lib.c - a library no test binary links: test_symbolize dlopen()s
 * it (and a deleted copy of it) after reading its own modules.  Built a
 * second time with the function named spare_twinfunc (libspare_twin.so):
 * the same code at the same addresses under another name. */
__attribute__((noinline)) int spare_function(int x)
{
	return x * 3 + 1;
}
