/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#include <math.h>
#include <string.h>

#include "histogram.h"

void
pp_hist_init(struct pp_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned int
pp_hist_index(uint64_t ns)
{
	unsigned int e;

	if (ns < 2 * PP_HIST_SUB)
		return ns;
	e = 63 - __builtin_clzll(ns);
	return (e - PP_HIST_SUB_BITS + 1) * PP_HIST_SUB +
		((ns >> (e - PP_HIST_SUB_BITS)) & (PP_HIST_SUB - 1));
}

uint64_t
pp_hist_lower(unsigned int i)
{
	unsigned int e;

	if (i < 2 * PP_HIST_SUB)
		return i;
	e = i / PP_HIST_SUB + PP_HIST_SUB_BITS - 1;
	return (uint64_t)(PP_HIST_SUB + i % PP_HIST_SUB) << (e - PP_HIST_SUB_BITS);
}

uint64_t
pp_hist_upper(unsigned int i)
{
	if (i + 1 >= PP_HIST_BUCKETS)
		return UINT64_MAX;
	return pp_hist_lower(i + 1);
}

void
pp_hist_add(struct pp_hist *h, uint64_t ns)
{
	h->count[pp_hist_index(ns)]++;
	h->n++;
	h->sum += (double)ns;
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
}

uint64_t
pp_hist_percentile(const struct pp_hist *h, double p)
{
	uint64_t rank, seen = 0, v;
	unsigned int i;

	if (h->n == 0)
		return 0;
	/* In whole hundredths of a percent: ceil(99.9 / 100 * 1000) in
	 * doubles is 1000, not 999. */
	rank = (h->n * (uint64_t)llround(p * 100) + 9999) / 10000;
	if (rank < 1)
		rank = 1;
	if (rank > h->n)
		rank = h->n;
	for (i = 0; i < PP_HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= rank)
			break;
	}
	v = pp_hist_upper(i) - 1;
	if (v > h->max)
		v = h->max;
	if (v < h->min)
		v = h->min;
	return v;
}

double
pp_hist_mean(const struct pp_hist *h)
{
	return h->n != 0 ? h->sum / (double)h->n : 0.0;
}
