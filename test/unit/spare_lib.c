/* spare_lib.c - a library no test binary links: test_symbolize dlopen()s
 * it (and a deleted copy of it) after reading its own modules. */
__attribute__((noinline)) int spare_function(int x)
{
	return x * 3 + 1;
}
