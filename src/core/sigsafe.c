/* sigsafe: hand-made decimal output and complete writes; see sigsafe.h. */
#include "config.h"
#include "core/sigsafe.h"

#include <errno.h>
#include <unistd.h>

char *u64_dec(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

int write_all(int fd, const void *buf, size_t len)
{
	const char *s = buf;
	while (len > 0) {
		ssize_t n = write(fd, s, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		s += n;
		len -= (size_t)n;
	}
	return 0;
}
