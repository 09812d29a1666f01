/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _WITNESS_H_
#define _WITNESS_H_

/*
 * The sequence witness: each frame's payload (after its L2/L3/L4 headers,
 * where offloads and cables carry it untouched) starts with a header naming
 * its stream and sequence number, checked by a hash of its own, followed by
 * a pattern derived from stream and sequence. The checker at the receiver
 * counts, per stream and per RX queue, what arrived: once, twice, out of
 * order, or damaged. Plain C, no DPDK: any buffer of bytes can be checked,
 * and garbage only ever counts as corrupted.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define WITNESS_MAGIC		0x57495431u	/* "WIT1" */
#define WITNESS_HDR_LEN		24

/* Write the witness of (stream, seq) over the len bytes at buf: the header,
 * then the pattern up to len. len must be at least WITNESS_HDR_LEN. */
void witness_stamp(void *buf, uint32_t len, uint16_t stream, uint64_t seq);

/* Read the witness at buf (len bytes): 0 with *stream and *seq set if the
 * header and the whole pattern hold, -1 if anything is wrong. */
int witness_parse(const void *buf, uint32_t len, uint16_t *stream, uint64_t *seq);

struct witness_counts {
	uint64_t received;	/* frames that arrived (corrupted ones too) */
	uint64_t unique;	/* distinct sequence numbers among them */
	uint64_t duplicated;	/* a sequence number already seen */
	uint64_t reordered;	/* first seen after a higher one of its stream */
	uint64_t corrupted;	/* witness unreadable or payload altered */
};

struct witness_checker;

/* A checker of nb_streams streams numbered 0.., each of sequence numbers
 * 0..max_seq-1, arriving on nb_queues queues. NULL if out of memory. */
struct witness_checker *witness_checker_create(uint16_t nb_streams, uint64_t max_seq,
					       uint16_t nb_queues);
void witness_checker_free(struct witness_checker *c);

/* Account one received frame's payload (from the witness header on) that
 * arrived on queue. A frame of an unknown stream, a sequence number out of
 * range or a queue out of range counts as corrupted (on queue 0 for the
 * last). Returns 0 if the frame was good, 1 if it was a duplicate, reordered
 * or corrupted. */
int witness_check(struct witness_checker *c, uint16_t queue, const void *buf, uint32_t len);

/* Counts of one stream (corrupted frames name no stream: see the queue's). */
const struct witness_counts *witness_stream(const struct witness_checker *c, uint16_t stream);
const struct witness_counts *witness_queue(const struct witness_checker *c, uint16_t queue);
/* The sums over every queue. */
void witness_total(const struct witness_checker *c, struct witness_counts *t);
/* Of the sent sequence numbers 0..sent-1 of stream, those never received. */
uint64_t witness_lost(const struct witness_checker *c, uint16_t stream, uint64_t sent);
/* The totals, and every stream with a loss or worse, on f; sent[stream]
 * is how many that stream sent. */
void witness_print(const struct witness_checker *c, const uint64_t *sent, FILE *f);

#endif /* _WITNESS_H_ */
