// cpp_names.cpp - C++ as a profiler must name it, built -O2 -g: a
// namespace, a class template, lambdas, always-inline helpers, std::invoke.
// main alternates between two halves:
//
//  Worker<int>::run: a lambda (not inlined) with a class template method
//  inlined into it and the helper mix inlined into that.  All have mangled
//  names in DWARF (a template's lambdas do).
//
//  churn, a plain function: GCC gives its lambdas no mangled name in DWARF.
//  "twice" is inlined through std::invoke and exists nowhere else; "add" is
//  inlined into it, and also has an out-of-line copy (the pointer to it
//  keeps one), whose symbol the test reads with nm.
#include <cstdint>
#include <functional>

namespace app {

volatile std::uint64_t sink;

__attribute__((always_inline)) inline std::uint64_t mix(std::uint64_t x)
{
	for (int i = 0; i < 64; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

template <typename T> class Worker {
public:
	__attribute__((noinline)) void run(T rounds)
	{
		auto step = [this](T i) __attribute__((noinline, noclone)) {
			total += scramble(i);
		};
		for (T i = 0; i < rounds; i++)
			step(i);
		sink = total;
	}

	__attribute__((always_inline)) std::uint64_t scramble(T i)
	{
		return mix(static_cast<std::uint64_t>(i) + total);
	}

private:
	std::uint64_t total = 0;
};

// Every member out of line too: nm lists scramble's copy.
template class Worker<int>;

struct Tally {
	std::uint64_t total = 0;
};

__attribute__((noinline)) void churn(int rounds)
{
	Tally t;
	auto add = [&t](int i) __attribute__((always_inline)) {
		t.total += mix(static_cast<std::uint64_t>(i));
	};
	static void (decltype(add)::*volatile keep)(int) const = &decltype(add)::operator();
	(void)keep;
	auto twice = [&add](int i) __attribute__((always_inline)) {
		add(i);
		add(-i);
	};
	for (int i = 0; i < rounds; i++)
		std::invoke(twice, i);
	sink = t.total;
}

} // namespace app

int main()
{
	app::Worker<int> worker;
	for (;;) {
		worker.run(20000);
		app::churn(15000);
	}
}
