/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_TEST_H_
#define _REFNIC_TEST_H_

/*
 * A small unit-test harness in the style of DPDK's app/test: suites of
 * cases with setup/teardown, TEST_ASSERT* macros that return TEST_FAILED
 * with a message, and a summary line the test runner reads.
 */

#include <stdio.h>

#define TEST_SUCCESS	0
#define TEST_FAILED	-1
#define TEST_SKIPPED	77

#define TEST_ASSERT(cond, msg, ...) do {					\
	if (!(cond)) {								\
		printf("    %s:%d: assertion '%s' failed: " msg "\n",		\
		       __func__, __LINE__, #cond, ##__VA_ARGS__);		\
		return TEST_FAILED;						\
	}									\
} while (0)

#define TEST_ASSERT_EQUAL(a, b, msg, ...) do {					\
	long long _a = (long long)(a), _b = (long long)(b);			\
	if (_a != _b) {								\
		printf("    %s:%d: %s == %lld, expected %s == %lld: " msg "\n",	\
		       __func__, __LINE__, #a, _a, #b, _b, ##__VA_ARGS__);	\
		return TEST_FAILED;						\
	}									\
} while (0)

#define TEST_ASSERT_SUCCESS(val, msg, ...) TEST_ASSERT_EQUAL(val, 0, msg, ##__VA_ARGS__)
#define TEST_ASSERT_FAIL(val, msg, ...) TEST_ASSERT((val) != 0, msg, ##__VA_ARGS__)

struct unit_test_case {
	const char *name;
	int (*setup)(void);
	void (*teardown)(void);
	int (*run)(void);
};

#define TEST_CASE(fn) { #fn, NULL, NULL, fn }
#define TEST_CASE_ST(setup, teardown, fn) { #fn, setup, teardown, fn }
#define TEST_CASES_END() { NULL, NULL, NULL, NULL }

struct unit_test_suite {
	const char *name;
	int (*setup)(void);
	void (*teardown)(void);
	struct unit_test_case cases[];
};

struct test_totals {
	unsigned int passed;
	unsigned int failed;
	unsigned int skipped;
};

void unit_test_suite_run(const struct unit_test_suite *suite, struct test_totals *t);

#endif /* _REFNIC_TEST_H_ */
