/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _PP_HISTOGRAM_H_
#define _PP_HISTOGRAM_H_

/*
 * Log-linear histogram of nanoseconds, HdrHistogram style: values below
 * 2 * PP_HIST_SUB each have their own bucket; above, every power of two
 * [2^e, 2^(e+1)) is cut into PP_HIST_SUB equal buckets. A bucket is at most
 * 1/PP_HIST_SUB (6.25%) of its lower bound wide, at any scale, in 976
 * buckets for the whole 64-bit range: no sample is ever clamped.
 */

#include <stdint.h>

#define PP_HIST_SUB_BITS 4
#define PP_HIST_SUB (1u << PP_HIST_SUB_BITS)
#define PP_HIST_BUCKETS ((64 - PP_HIST_SUB_BITS + 1) * PP_HIST_SUB)

struct pp_hist {
	uint64_t count[PP_HIST_BUCKETS];
	uint64_t n;
	uint64_t min;
	uint64_t max;
	double sum;
};

void pp_hist_init(struct pp_hist *h);
void pp_hist_add(struct pp_hist *h, uint64_t ns);
unsigned int pp_hist_index(uint64_t ns);
/* Bucket i holds [lower, upper); the last bucket's upper is UINT64_MAX. */
uint64_t pp_hist_lower(unsigned int i);
uint64_t pp_hist_upper(unsigned int i);
/*
 * The p-th percentile (0 < p <= 100): the largest value the bucket holding
 * the sample of rank ceil(p/100 * n) can hold, kept within the exact
 * [min, max]. So it overstates by less than one bucket (6.25%), never
 * exceeds max, and is non-decreasing in p. 0 when the histogram is empty.
 */
uint64_t pp_hist_percentile(const struct pp_hist *h, double p);
double pp_hist_mean(const struct pp_hist *h);

#endif /* _PP_HISTOGRAM_H_ */
