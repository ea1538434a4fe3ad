// cpp_lambdas.cpp - lambdas as a profiler must spell them, inlined or not.
//
// Built twice from this file: cpp_lambdas (-O2 -g, every lambda inlined
// into its function, so only DWARF describes it, and GCC gives it no
// mangled name there) and cpp_lambdas_ool (-DOUT_OF_LINE: each kept out
// of line, so the symbol table names it and c++filt prints that name).
// One spelling for both is c++filt's: "spin(int)::{lambda(int)#2}::
// operator()(int) const".  The lambdas are GCC's numbers 1 to 5 of spin
// in source order; the third is declared in a block, whose DWARF comes
// after the function's own (so DIE order is not the number); the fifth is
// mutable (its operator() is not const).
#include <string>

#ifdef OUT_OF_LINE
#define KEEP __attribute__((noinline))
#else
#define KEEP __attribute__((always_inline))
#endif

volatile unsigned long sink;

__attribute__((noinline)) void spin(int rounds)
{
	auto first = [](long x, long y) KEEP {
		for (int k = 0; k < 300; k++)
			sink = sink + static_cast<unsigned long>(x * y);
	};
	auto second = [](int x) KEEP {
		for (int k = 0; k < 300; k++)
			sink = sink + static_cast<unsigned long>(x);
	};
	for (int i = 0; i < rounds; i++) {
		auto third = [](unsigned long u) KEEP {
			for (int k = 0; k < 300; k++)
				sink = sink + u;
		};
		first(i, 2);
		second(i);
		third(static_cast<unsigned long>(i));
	}
	std::string word("x");
	auto fourth = [&word](const char *p, std::string &t) KEEP {
		for (int k = 0; k < 300; k++)
			sink = sink + static_cast<unsigned long>(p[0]) + t.size() + word.size();
	};
	auto fifth = [n = 0UL](int x) mutable KEEP {
		for (int k = 0; k < 300; k++)
			sink = n += static_cast<unsigned long>(x);
	};
	for (int i = 0; i < rounds; i++) {
		fourth("a", word);
		fifth(i);
	}
}

int main()
{
	auto outer = [](long x) KEEP { /* as long as spin's five together */
		for (int k = 0; k < 150000; k++)
			sink = sink + static_cast<unsigned long>(x);
	};
	for (;;) {
		outer(1);
		spin(100);
	}
}
