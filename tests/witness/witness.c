/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "witness.h"

/*
 * The header, big-endian, written byte by byte (no alignment assumed):
 *   0 magic (4)  4 stream (2)  6 length of the whole witness (2)
 *   8 seq (8)   16 check (4)  20 reserved, 0 (4)
 * check is FNV-1a over bytes 0..15, so that a flipped bit anywhere in the
 * fields is caught even where the pattern would still fit.
 */
#define W_OFF_MAGIC	0
#define W_OFF_STREAM	4
#define W_OFF_LEN	6
#define W_OFF_SEQ	8
#define W_OFF_CHECK	16
#define W_OFF_RSVD	20

struct witness_stream_state {
	struct witness_counts counts;
	uint64_t highest;	/* highest seq seen + 1; 0: none yet */
	uint64_t *seen;		/* one bit per sequence number */
};

struct witness_checker {
	uint16_t nb_streams;
	uint16_t nb_queues;
	uint64_t max_seq;
	struct witness_stream_state *streams;
	struct witness_counts *queues;
};

static void
put_be(uint8_t *p, uint64_t v, unsigned int n)
{
	while (n-- > 0) {
		p[n] = (uint8_t)v;
		v >>= 8;
	}
}

static uint64_t
get_be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static uint32_t
fnv1a(const uint8_t *p, unsigned int n)
{
	uint32_t h = 2166136261u;

	while (n-- > 0)
		h = (h ^ *p++) * 16777619u;
	return h;
}

/* The pattern's state for (stream, seq): every frame's bytes differ. */
static uint64_t
pattern_seed(uint16_t stream, uint64_t seq)
{
	uint64_t x = seq * 0x9e3779b97f4a7c15ull ^ ((uint64_t)stream << 48 | 0x5bd1e995u);

	return x != 0 ? x : 1;
}

/* xorshift64: eight pattern bytes a step. */
static uint64_t
pattern_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

void
witness_stamp(void *buf, uint32_t len, uint16_t stream, uint64_t seq)
{
	uint8_t *p = buf;
	uint64_t x = pattern_seed(stream, seq), v = 0;
	uint32_t i;

	put_be(p + W_OFF_MAGIC, WITNESS_MAGIC, 4);
	put_be(p + W_OFF_STREAM, stream, 2);
	put_be(p + W_OFF_LEN, len > UINT16_MAX ? UINT16_MAX : len, 2);
	put_be(p + W_OFF_SEQ, seq, 8);
	put_be(p + W_OFF_CHECK, fnv1a(p, W_OFF_CHECK), 4);
	put_be(p + W_OFF_RSVD, 0, 4);
	for (i = WITNESS_HDR_LEN; i < len; i++) {
		if ((i - WITNESS_HDR_LEN) % 8 == 0)
			v = pattern_next(&x);
		p[i] = (uint8_t)(v >> ((i - WITNESS_HDR_LEN) % 8 * 8));
	}
}

int
witness_parse(const void *buf, uint32_t len, uint16_t *stream, uint64_t *seq)
{
	const uint8_t *p = buf;
	uint64_t x, v = 0;
	uint32_t i, wlen;

	if (p == NULL || len < WITNESS_HDR_LEN ||
	    get_be(p + W_OFF_MAGIC, 4) != WITNESS_MAGIC ||
	    get_be(p + W_OFF_CHECK, 4) != fnv1a(p, W_OFF_CHECK) ||
	    get_be(p + W_OFF_RSVD, 4) != 0)
		return -1;
	/* The frame may have been padded (Ethernet's minimum), never cut. */
	wlen = (uint32_t)get_be(p + W_OFF_LEN, 2);
	if (wlen < WITNESS_HDR_LEN || wlen > len || (wlen == UINT16_MAX && len < wlen))
		return -1;
	if (wlen == UINT16_MAX)
		wlen = len;
	*stream = (uint16_t)get_be(p + W_OFF_STREAM, 2);
	*seq = get_be(p + W_OFF_SEQ, 8);
	x = pattern_seed(*stream, *seq);
	for (i = WITNESS_HDR_LEN; i < wlen; i++) {
		if ((i - WITNESS_HDR_LEN) % 8 == 0)
			v = pattern_next(&x);
		if (p[i] != (uint8_t)(v >> ((i - WITNESS_HDR_LEN) % 8 * 8)))
			return -1;
	}
	return 0;
}

struct witness_checker *
witness_checker_create(uint16_t nb_streams, uint64_t max_seq, uint16_t nb_queues)
{
	struct witness_checker *c;
	uint16_t s;

	if (nb_streams == 0 || nb_queues == 0 || max_seq == 0)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	c->nb_streams = nb_streams;
	c->nb_queues = nb_queues;
	c->max_seq = max_seq;
	c->streams = calloc(nb_streams, sizeof(*c->streams));
	c->queues = calloc(nb_queues, sizeof(*c->queues));
	if (c->streams == NULL || c->queues == NULL)
		goto fail;
	for (s = 0; s < nb_streams; s++) {
		c->streams[s].seen = calloc((max_seq + 63) / 64, sizeof(uint64_t));
		if (c->streams[s].seen == NULL)
			goto fail;
	}
	return c;
fail:
	witness_checker_free(c);
	return NULL;
}

void
witness_checker_free(struct witness_checker *c)
{
	uint16_t s;

	if (c == NULL)
		return;
	if (c->streams != NULL)
		for (s = 0; s < c->nb_streams; s++)
			free(c->streams[s].seen);
	free(c->streams);
	free(c->queues);
	free(c);
}

int
witness_check(struct witness_checker *c, uint16_t queue, const void *buf, uint32_t len)
{
	struct witness_stream_state *st;
	struct witness_counts *q;
	uint64_t seq, bit;
	uint16_t stream;

	if (queue >= c->nb_queues) {
		c->queues[0].received++;
		c->queues[0].corrupted++;
		return 1;
	}
	q = &c->queues[queue];
	q->received++;
	if (witness_parse(buf, len, &stream, &seq) != 0 ||
	    stream >= c->nb_streams || seq >= c->max_seq) {
		q->corrupted++;
		return 1;
	}
	st = &c->streams[stream];
	st->counts.received++;
	bit = UINT64_C(1) << (seq % 64);
	if (st->seen[seq / 64] & bit) {
		st->counts.duplicated++;
		q->duplicated++;
		return 1;
	}
	st->seen[seq / 64] |= bit;
	st->counts.unique++;
	q->unique++;
	if (seq + 1 < st->highest) {
		st->counts.reordered++;
		q->reordered++;
		return 1;
	}
	st->highest = seq + 1;
	return 0;
}

const struct witness_counts *
witness_stream(const struct witness_checker *c, uint16_t stream)
{
	return stream < c->nb_streams ? &c->streams[stream].counts : NULL;
}

const struct witness_counts *
witness_queue(const struct witness_checker *c, uint16_t queue)
{
	return queue < c->nb_queues ? &c->queues[queue] : NULL;
}

void
witness_total(const struct witness_checker *c, struct witness_counts *t)
{
	uint16_t q;

	memset(t, 0, sizeof(*t));
	for (q = 0; q < c->nb_queues; q++) {
		t->received += c->queues[q].received;
		t->unique += c->queues[q].unique;
		t->duplicated += c->queues[q].duplicated;
		t->reordered += c->queues[q].reordered;
		t->corrupted += c->queues[q].corrupted;
	}
}

uint64_t
witness_lost(const struct witness_checker *c, uint16_t stream, uint64_t sent)
{
	const struct witness_stream_state *st;
	uint64_t lost = 0, i;

	if (stream >= c->nb_streams)
		return sent;
	st = &c->streams[stream];
	for (i = 0; i < sent; i++)
		if (i >= c->max_seq || !(st->seen[i / 64] & UINT64_C(1) << (i % 64)))
			lost++;
	return lost;
}

void
witness_print(const struct witness_checker *c, const uint64_t *sent, FILE *f)
{
	struct witness_counts t;
	uint64_t lost = 0, sum = 0, l;
	uint16_t s, q;

	for (s = 0; s < c->nb_streams; s++) {
		sum += sent[s];
		lost += witness_lost(c, s, sent[s]);
	}
	witness_total(c, &t);
	fprintf(f, "witness: sent %" PRIu64 " received %" PRIu64 " lost %" PRIu64
		" duplicated %" PRIu64 " reordered %" PRIu64 " corrupted %" PRIu64 "\n",
		sum, t.received, lost, t.duplicated, t.reordered, t.corrupted);
	for (q = 0; q < c->nb_queues; q++)
		fprintf(f, "witness: queue %u received %" PRIu64 " duplicated %" PRIu64
			" reordered %" PRIu64 " corrupted %" PRIu64 "\n", q,
			c->queues[q].received, c->queues[q].duplicated, c->queues[q].reordered,
			c->queues[q].corrupted);
	for (s = 0; s < c->nb_streams; s++) {
		const struct witness_counts *w = &c->streams[s].counts;

		l = witness_lost(c, s, sent[s]);
		if (l != 0 || w->duplicated != 0 || w->reordered != 0)
			fprintf(f, "witness: stream %u sent %" PRIu64 " received %" PRIu64
				" lost %" PRIu64 " duplicated %" PRIu64 " reordered %" PRIu64 "\n",
				s, sent[s], w->received, l, w->duplicated, w->reordered);
	}
}
