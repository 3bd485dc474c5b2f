/* The test proxy's CRC32C and CRC64NVME, byte-wise over 256-entry tables:
   the textbook reflected CRC, no SIMD, nothing shared with floe's own code.
   checksums.py compiles this with the machine's C compiler on first use and
   loads it with ctypes; without a compiler it computes the same in Python. */
#include <stddef.h>
#include <stdint.h>

static uint32_t table32c[256];
static uint64_t table64[256];

void proxy_crc_init(void) {
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    uint64_t d = i;
    for (int k = 0; k < 8; ++k) {
      c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
      d = (d & 1) ? (d >> 1) ^ 0x9A6C9329AC4BC9B5ull : d >> 1;
    }
    table32c[i] = c;
    table64[i] = d;
  }
}

uint32_t proxy_crc32c(uint32_t crc, const unsigned char* p, size_t n) {
  uint32_t c = ~crc;
  while (n--) c = table32c[(c ^ *p++) & 0xFF] ^ (c >> 8);
  return ~c;
}

uint64_t proxy_crc64nvme(uint64_t crc, const unsigned char* p, size_t n) {
  uint64_t c = ~crc;
  while (n--) c = table64[(c ^ *p++) & 0xFF] ^ (c >> 8);
  return ~c;
}
