// cpp_names.cpp - C++ as a profiler must name it: a namespace, a class
// template, a lambda and an always-inline helper, built -O2 -g.  Nearly
// all its time is in the helper, inlined into the lambda's operator().
#include <cstdint>

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
		auto step = [this](T i) __attribute__((noinline)) {
			total += mix(static_cast<std::uint64_t>(i));
		};
		for (T i = 0; i < rounds; i++)
			step(i);
		sink = total;
	}

private:
	std::uint64_t total = 0;
};

} // namespace app

int main()
{
	app::Worker<int> worker;
	for (;;)
		worker.run(100000);
}
