/* regress.c - runs a fuzz target over files, without libFuzzer: how
 * make check replays the seed corpus and every input a fuzzer ever
 * crashed on (test/fuzz/corpus/TARGET/).  Prints "N inputs". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	int n = 0;
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 1;
		}
		static uint8_t buf[1 << 20];
		size_t len = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		uint8_t *copy = malloc(len ? len : 1);
		for (size_t k = 0; k < len; k++)
			copy[k] = buf[k];
		LLVMFuzzerTestOneInput(copy, len);
		free(copy);
		n++;
	}
	printf("%d inputs\n", n);
	return 0;
}
