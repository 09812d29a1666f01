/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The device clock, RX timestamps and IEEE 1588 (contract 1.4), through
 * the ethdev API: stamps monotonic and inside the read_clock readings taken
 * around them; the clock's rate against the host's CLOCK_MONOTONIC; adjust,
 * read and write by exact amounts, bounded by the host time they took; the
 * PTP latches taking Sync and Delay_Req only, one at a time, and exactly
 * the stamp the completion carried.
 */

#include <time.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_mbuf_dyn.h>
#include <rte_udp.h>

#include "test_common.h"

#define TA	"net_refnic_ta"
#define TB	"net_refnic_tb"
#define NSEC	INT64_C(1000000000)
#define NB_FRAMES	64
/* The device clock's rate against CLOCK_MONOTONIC: baremetal's oscillator
 * runs 100 ppm fast (refnic_emu_profile.c), NTP may slew the host's by 500 ppm. */
#define RATE_TOLERANCE	0.001

enum ptp_msg { PTP_SYNC = 0, PTP_DELAY_REQ = 1, PTP_FOLLOW_UP = 8 };

static uint16_t port_a, port_b;
static int ts_offset = -1;
static uint64_t ts_flag;

static int
ts_setup(void)
{
	if (test_pair_create(TA, TB, &port_a, &port_b) != 0)
		return TEST_FAILED;
	return TEST_SUCCESS;
}

static void
ts_teardown(void)
{
	test_pair_destroy(TA, TB);
}

static int64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

static int64_t
ts_ns(const struct timespec *ts)
{
	return ts->tv_sec * NSEC + ts->tv_nsec;
}

static uint64_t
clock_of(uint16_t port)
{
	uint64_t c = 0;

	if (rte_eth_read_clock(port, &c) != 0)
		return 0;
	return c;
}

static bool
stamped(const struct rte_mbuf *m)
{
	return ts_offset >= 0 && (m->ol_flags & ts_flag);
}

static uint64_t
stamp_of(const struct rte_mbuf *m)
{
	return *RTE_MBUF_DYNFIELD(m, ts_offset, const rte_mbuf_timestamp_t *);
}

/* A PTP v2 message over Ethernet (to 01:1B:19:00:00:00, as ptp4l -2 sends). */
static struct rte_mbuf *
ptp_l2(enum ptp_msg type)
{
	static const struct rte_ether_addr ptp_mc = {{ 0x01, 0x1b, 0x19, 0, 0, 0 }};
	struct rte_mbuf *m = test_make_pkt(&ptp_mc, 14 + 44, type, 1);
	uint8_t *p;

	if (m == NULL)
		return NULL;
	p = rte_pktmbuf_mtod(m, uint8_t *);
	p[12] = 0x88;
	p[13] = 0xf7;
	p[14] = type;		/* transportSpecific 0, messageType */
	p[15] = 2;		/* versionPTP */
	return m;
}

/* The same over UDP/IPv4 to port dport (319 event, 320 general). */
static struct rte_mbuf *
ptp_udp(enum ptp_msg type, uint16_t dport)
{
	struct rte_mbuf *m = test_make_l4_pkt(false, IPPROTO_UDP, true, 1, 44);
	struct rte_udp_hdr *udp;
	uint8_t *ptp;

	if (m == NULL)
		return NULL;
	udp = rte_pktmbuf_mtod_offset(m, struct rte_udp_hdr *,
				      sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr));
	udp->dst_port = rte_cpu_to_be_16(dport);
	udp->dgram_cksum = 0;	/* none, as IPv4 allows */
	ptp = (uint8_t *)(udp + 1);
	ptp[0] = type;
	ptp[1] = 2;
	return m;
}

/* Send m A->B and take it at B; NULL if it did not arrive. */
static struct rte_mbuf *
cross(struct rte_mbuf *m)
{
	struct rte_mbuf *rx;

	if (m == NULL || test_tx_all(port_a, &m, 1) != 1)
		return NULL;
	return test_rx_wait(port_b, &rx, 1) == 1 ? rx : NULL;
}

/* Both ports started; B's RX queue with the timestamp offload if asked. */
static int
ts_start(bool rx_tstamp)
{
	int ret = rte_mbuf_dyn_rx_timestamp_register(&ts_offset, &ts_flag);

	if (ret != 0)
		return ret;
	ret = test_port_start(port_a, 0, 0);
	if (ret == 0)
		ret = test_port_start(port_b, rx_tstamp ? RTE_ETH_RX_OFFLOAD_TIMESTAMP : 0, 0);
	/* Whatever a failed case left on. */
	if (ret == 0)
		ret = rte_eth_timesync_disable(port_a);
	if (ret == 0)
		ret = rte_eth_timesync_disable(port_b);
	return ret;
}

static int
test_rx_timestamp_offered(void)
{
	struct rte_eth_dev_info info;
	uint64_t c;

	TEST_ASSERT_SUCCESS(rte_eth_dev_info_get(port_b, &info), "");
	TEST_ASSERT(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TIMESTAMP,
		    "RX timestamps not offered");
	TEST_ASSERT_SUCCESS(rte_eth_read_clock(port_b, &c), "read_clock");
	return TEST_SUCCESS;
}

/*
 * Every frame carries a stamp; stamps never go back, and each lies between
 * a read_clock before its send and one after it was received.
 */
static int
test_rx_stamps_monotonic_within_read_clock(void)
{
	struct rte_mbuf *tx[NB_FRAMES], *rx[NB_FRAMES];
	uint64_t before, after, prev = 0;
	struct rte_eth_burst_mode mode;
	unsigned int i, n;

	TEST_ASSERT_SUCCESS(ts_start(true), "");
	/* The vector RX takes 16-byte completions only: stamps go scalar. */
	TEST_ASSERT_SUCCESS(rte_eth_rx_burst_mode_get(port_b, 0, &mode), "");
	TEST_ASSERT(strstr(mode.info, "Scalar") != NULL, "RX burst with stamps: %s", mode.info);
	for (i = 0; i < NB_FRAMES; i++) {
		tx[i] = test_make_pkt(&(struct rte_ether_addr){{ 0x02, 0, 0, 0, 0, 0xb }},
				      64, i, 1);
		TEST_ASSERT(tx[i] != NULL, "");
	}
	before = clock_of(port_b);
	TEST_ASSERT(before != 0, "read_clock");
	/* Two bursts, with time between them the stamps must show: the
	 * first received (stamped) before the 1 ms begins, however late an
	 * engine delivered it, the second sent after it ends. */
	TEST_ASSERT_EQUAL(test_tx_all(port_a, tx, NB_FRAMES / 2), NB_FRAMES / 2, "");
	n = test_rx_wait(port_b, rx, NB_FRAMES / 2);
	TEST_ASSERT_EQUAL(n, NB_FRAMES / 2, "received of the first burst");
	rte_delay_us_sleep(1000);
	TEST_ASSERT_EQUAL(test_tx_all(port_a, tx + NB_FRAMES / 2, NB_FRAMES / 2),
			  NB_FRAMES / 2, "");
	n += test_rx_wait(port_b, rx + n, NB_FRAMES / 2);
	after = clock_of(port_b);
	TEST_ASSERT_EQUAL(n, NB_FRAMES, "received");
	for (i = 0; i < n; i++) {
		uint64_t s = stamped(rx[i]) ? stamp_of(rx[i]) : 0;

		TEST_ASSERT(stamped(rx[i]), "frame %u has no timestamp", i);
		TEST_ASSERT(s >= before && s <= after,
			    "frame %u: stamp %" PRIu64 " outside read_clock [%" PRIu64 ", %" PRIu64 "]",
			    i, s, before, after);
		TEST_ASSERT(s >= prev, "frame %u: stamp %" PRIu64 " before the previous %" PRIu64,
			    i, s, prev);
		/* The 1 ms sleep between the bursts is in the stamps (less 1%:
		 * the sleep's clock is one NTP may slew, the device's is not). */
		if (i == NB_FRAMES / 2)
			TEST_ASSERT(s - prev >= 990000, "a 1 ms gap shows as %" PRIu64 " ns",
				    s - prev);
		prev = s;
	}
	rte_pktmbuf_free_bulk(rx, n);

	/* Without the offload: no flag, and the vector RX is back (if any). */
	TEST_ASSERT_SUCCESS(ts_start(false), "");
	rx[0] = cross(test_make_pkt(&(struct rte_ether_addr){{ 0x02, 0, 0, 0, 0, 0xb }},
				    64, 1, 1));
	TEST_ASSERT(rx[0] != NULL, "");
	TEST_ASSERT(!stamped(rx[0]), "a stamp without the offload");
	rte_pktmbuf_free(rx[0]);
	return TEST_SUCCESS;
}

/* The clock counts nanoseconds at the host's rate. */
static int
test_read_clock_rate(void)
{
	int64_t t0, t1, t2, t3, lo, hi;
	uint64_t c0, c1;

	t0 = mono_ns();
	c0 = clock_of(port_b);
	t1 = mono_ns();
	rte_delay_us_sleep(50000);
	t2 = mono_ns();
	c1 = clock_of(port_b);
	t3 = mono_ns();
	lo = (int64_t)((t2 - t1) * (1 - RATE_TOLERANCE));
	hi = (int64_t)((t3 - t0) * (1 + RATE_TOLERANCE));
	TEST_ASSERT(c0 != 0 && (int64_t)(c1 - c0) >= lo && (int64_t)(c1 - c0) <= hi,
		    "the clock moved %" PRId64 " ns while the host's moved %" PRId64 " .. %" PRId64,
		    (int64_t)(c1 - c0), t2 - t1, t3 - t0);
	return TEST_SUCCESS;
}

/* d: the clock's move from t to u, less what the host's time allows for. */
#define ASSERT_MOVED(t, u, want, host_ns, what)					\
	TEST_ASSERT(ts_ns(u) - ts_ns(t) - (want) >= 0 &&			\
		    ts_ns(u) - ts_ns(t) - (want) <=				\
		    (int64_t)((host_ns) * (1 + RATE_TOLERANCE)) + 1000,	\
		    "%s: read_time moved %" PRId64 " ns, want %" PRId64 " + [0, %" PRId64 "]", \
		    what, ts_ns(u) - ts_ns(t), (int64_t)(want), (int64_t)(host_ns))

static int
test_timesync_adjust_read_write(void)
{
	const struct timespec set = { .tv_sec = 1000, .tv_nsec = 123 };
	struct timespec t, u, bad;
	struct rte_mbuf *rx;
	int64_t h;

	TEST_ASSERT_SUCCESS(ts_start(true), "");
	TEST_ASSERT_SUCCESS(rte_eth_timesync_enable(port_b), "");

	h = mono_ns();
	TEST_ASSERT_SUCCESS(rte_eth_timesync_read_time(port_b, &t), "");
	TEST_ASSERT_SUCCESS(rte_eth_timesync_adjust_time(port_b, NSEC), "+1 s");
	TEST_ASSERT_SUCCESS(rte_eth_timesync_read_time(port_b, &u), "");
	ASSERT_MOVED(&t, &u, NSEC, mono_ns() - h, "adjust +1 s");

	h = mono_ns();
	TEST_ASSERT_SUCCESS(rte_eth_timesync_read_time(port_b, &t), "");
	TEST_ASSERT_SUCCESS(rte_eth_timesync_adjust_time(port_b, -NSEC / 4), "-250 ms");
	TEST_ASSERT_SUCCESS(rte_eth_timesync_read_time(port_b, &u), "");
	ASSERT_MOVED(&t, &u, -NSEC / 4, mono_ns() - h, "adjust -250 ms");

	h = mono_ns();
	TEST_ASSERT_SUCCESS(rte_eth_timesync_write_time(port_b, &set), "");
	TEST_ASSERT_SUCCESS(rte_eth_timesync_read_time(port_b, &u), "");
	ASSERT_MOVED(&set, &u, 0, mono_ns() - h, "write 1000.000000123 s");

	/* The RX stamps run on the same clock, and read_clock reads it. */
	rx = cross(test_make_pkt(&(struct rte_ether_addr){{ 0x02, 0, 0, 0, 0, 0xb }}, 64, 2, 1));
	TEST_ASSERT(rx != NULL && stamped(rx), "");
	TEST_ASSERT(stamp_of(rx) >= (uint64_t)ts_ns(&set) &&
		    stamp_of(rx) <= clock_of(port_b),
		    "a stamp %" PRIu64 " after write_time(%" PRId64 ")", stamp_of(rx), ts_ns(&set));
	rte_pktmbuf_free(rx);

	/* Bad times are refused, and the clock stays where it was. */
	bad = (struct timespec){ .tv_sec = 1, .tv_nsec = NSEC };
	TEST_ASSERT_EQUAL(rte_eth_timesync_write_time(port_b, &bad), -EINVAL, "tv_nsec 1e9");
	bad = (struct timespec){ .tv_sec = -1 };
	TEST_ASSERT_EQUAL(rte_eth_timesync_write_time(port_b, &bad), -EINVAL, "before 0");
	TEST_ASSERT_EQUAL(rte_eth_timesync_adjust_time(port_b, -2000 * NSEC), -EINVAL,
			  "adjusted below 0");
	TEST_ASSERT_SUCCESS(rte_eth_timesync_read_time(port_b, &u), "");
	TEST_ASSERT(u.tv_sec >= set.tv_sec && u.tv_sec < set.tv_sec + 60,
		    "the clock moved on a refused command: %jd s", (intmax_t)u.tv_sec);
	TEST_ASSERT_SUCCESS(rte_eth_timesync_disable(port_b), "");
	return TEST_SUCCESS;
}

/* What B's RX latch holds now: its stamp, or -1 if empty. */
static int64_t
rx_latch(void)
{
	struct timespec ts;

	return rte_eth_timesync_read_rx_timestamp(port_b, &ts, 0) == 0 ? ts_ns(&ts) : -1;
}

static int
test_ptp_rx_latch_takes_event_messages_only(void)
{
	struct rte_mbuf *rx, *two[2];
	uint64_t first;

	TEST_ASSERT_SUCCESS(ts_start(true), "");
	/* Timesync off: a Sync is a frame like any other. */
	rx = cross(ptp_l2(PTP_SYNC));
	TEST_ASSERT(rx != NULL, "");
	TEST_ASSERT(!(rx->ol_flags & RTE_MBUF_F_RX_IEEE1588_PTP), "PTP flag with timesync off");
	rte_pktmbuf_free(rx);
	TEST_ASSERT_SUCCESS(rte_eth_timesync_enable(port_b), "");
	TEST_ASSERT_EQUAL(rx_latch(), -1, "a latch with timesync off");

	/* Not latched: a frame that is not PTP, PTP general messages. */
	rx = cross(test_make_pkt(&(struct rte_ether_addr){{ 0x02, 0, 0, 0, 0, 0xb }}, 64, 3, 1));
	TEST_ASSERT(rx != NULL && !(rx->ol_flags & RTE_MBUF_F_RX_IEEE1588_PTP), "not PTP");
	rte_pktmbuf_free(rx);
	rx = cross(ptp_l2(PTP_FOLLOW_UP));
	TEST_ASSERT(rx != NULL && (rx->ol_flags & RTE_MBUF_F_RX_IEEE1588_PTP),
		    "a Follow_Up is PTP");
	rte_pktmbuf_free(rx);
	rx = cross(ptp_udp(PTP_SYNC, 320));
	TEST_ASSERT(rx != NULL && (rx->ol_flags & RTE_MBUF_F_RX_IEEE1588_PTP),
		    "UDP port 320 is PTP");
	rte_pktmbuf_free(rx);
	TEST_ASSERT_EQUAL(rx_latch(), -1, "a non-event frame latched");

	/* A Sync latches exactly the time its completion carries; read once. */
	rx = cross(ptp_l2(PTP_SYNC));
	TEST_ASSERT(rx != NULL && (rx->ol_flags & RTE_MBUF_F_RX_IEEE1588_PTP) && stamped(rx),
		    "a stamped Sync");
	TEST_ASSERT_EQUAL(rx->timesync, 0, "latch index");
	TEST_ASSERT_EQUAL(rx_latch(), (int64_t)stamp_of(rx), "the Sync's latch");
	TEST_ASSERT_EQUAL(rx_latch(), -1, "read twice");
	rte_pktmbuf_free(rx);

	/* Two event messages: the latch keeps the first until read. */
	two[0] = ptp_udp(PTP_SYNC, 319);
	two[1] = ptp_l2(PTP_DELAY_REQ);
	TEST_ASSERT(two[0] != NULL && two[1] != NULL, "");
	TEST_ASSERT_EQUAL(test_tx_all(port_a, two, 2), 2, "");
	TEST_ASSERT_EQUAL(test_rx_wait(port_b, two, 2), 2, "");
	first = stamp_of(two[0]);
	TEST_ASSERT(stamped(two[0]) && stamped(two[1]), "");
	TEST_ASSERT_EQUAL(rx_latch(), (int64_t)first, "the first of two (UDP 319 Sync)");
	TEST_ASSERT_EQUAL(rx_latch(), -1, "the second came while the first was held");
	rte_pktmbuf_free_bulk(two, 2);

	/* Off again: nothing latches. */
	TEST_ASSERT_SUCCESS(rte_eth_timesync_disable(port_b), "");
	rx = cross(ptp_l2(PTP_SYNC));
	TEST_ASSERT(rx != NULL, "");
	rte_pktmbuf_free(rx);
	TEST_ASSERT_EQUAL(rx_latch(), -1, "latched with timesync off");
	return TEST_SUCCESS;
}

/*
 * Without stamps the vector RX runs (where the CPU has it): a PTP frame
 * among plain ones still comes out flagged, the others not (the vector
 * step hands completions with flags it does not know to the scalar core).
 */
static int
test_ptp_flag_on_the_default_rx(void)
{
	struct rte_mbuf *tx[8], *rx[8];
	unsigned int i, n;

	TEST_ASSERT_SUCCESS(ts_start(false), "");
	TEST_ASSERT_SUCCESS(rte_eth_timesync_enable(port_b), "");
	for (i = 0; i < RTE_DIM(tx); i++) {
		tx[i] = i == 5 ? ptp_l2(PTP_SYNC) :
			test_make_pkt(&(struct rte_ether_addr){{ 0x02, 0, 0, 0, 0, 0xb }}, 64, i, 1);
		TEST_ASSERT(tx[i] != NULL, "");
	}
	TEST_ASSERT_EQUAL(test_tx_all(port_a, tx, RTE_DIM(tx)), RTE_DIM(tx), "");
	n = test_rx_wait(port_b, rx, RTE_DIM(rx));
	TEST_ASSERT_EQUAL(n, RTE_DIM(rx), "received");
	for (i = 0; i < n; i++)
		TEST_ASSERT_EQUAL(!!(rx[i]->ol_flags & RTE_MBUF_F_RX_IEEE1588_PTP), i == 5,
				  "frame %u", i);
	rte_pktmbuf_free_bulk(rx, n);
	TEST_ASSERT(rx_latch() > 0, "the Sync latched");
	TEST_ASSERT_SUCCESS(rte_eth_timesync_disable(port_b), "");
	return TEST_SUCCESS;
}

static int
test_ptp_tx_latch_takes_marked_packets(void)
{
	struct timespec ts;
	struct rte_mbuf *m, *rx;
	uint64_t before, after;

	TEST_ASSERT_SUCCESS(ts_start(false), "");
	TEST_ASSERT_SUCCESS(rte_eth_timesync_enable(port_a), "");
	TEST_ASSERT_EQUAL(rte_eth_timesync_read_tx_timestamp(port_a, &ts), -EINVAL, "empty");
	/* A PTP frame not asked for: no latch. */
	rx = cross(ptp_l2(PTP_DELAY_REQ));
	TEST_ASSERT(rx != NULL, "");
	rte_pktmbuf_free(rx);
	TEST_ASSERT_EQUAL(rte_eth_timesync_read_tx_timestamp(port_a, &ts), -EINVAL,
			  "latched without RTE_MBUF_F_TX_IEEE1588_TMST");

	m = ptp_l2(PTP_DELAY_REQ);
	TEST_ASSERT(m != NULL, "");
	m->ol_flags |= RTE_MBUF_F_TX_IEEE1588_TMST;
	TEST_ASSERT_EQUAL(rte_eth_tx_prepare(port_a, 0, &m, 1), 1, "tx_prepare");
	before = clock_of(port_a);
	rx = cross(m);
	after = clock_of(port_a);
	TEST_ASSERT(rx != NULL, "");
	rte_pktmbuf_free(rx);
	TEST_ASSERT_SUCCESS(rte_eth_timesync_read_tx_timestamp(port_a, &ts), "latched");
	TEST_ASSERT((uint64_t)ts_ns(&ts) >= before && (uint64_t)ts_ns(&ts) <= after,
		    "TX stamp %" PRId64 " outside read_clock [%" PRIu64 ", %" PRIu64 "]",
		    ts_ns(&ts), before, after);
	TEST_ASSERT_EQUAL(rte_eth_timesync_read_tx_timestamp(port_a, &ts), -EINVAL,
			  "read twice");
	TEST_ASSERT_SUCCESS(rte_eth_timesync_disable(port_a), "");
	return TEST_SUCCESS;
}

/* caps_off=ptp: no timesync, the clock still reads; rx_tstamp too: no clock. */
static int
test_caps_off(void)
{
	static const char *const cases[] = { "caps_off=ptp", "caps_off=rx_tstamp+ptp" };
	unsigned int i;

	for (i = 0; i < RTE_DIM(cases); i++) {
		struct rte_eth_dev_info info;
		struct timespec ts;
		uint16_t p;
		uint64_t c;
		bool tstamp = i == 0;

		TEST_ASSERT_SUCCESS(test_port_create("net_refnic_tc", cases[i], &p), "%s",
				    cases[i]);
		TEST_ASSERT_SUCCESS(rte_eth_dev_info_get(p, &info), "");
		TEST_ASSERT_EQUAL(!!(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TIMESTAMP),
				  tstamp, "%s: timestamp offload", cases[i]);
		TEST_ASSERT_EQUAL(rte_eth_read_clock(p, &c), tstamp ? 0 : -ENOTSUP,
				  "%s: read_clock", cases[i]);
		TEST_ASSERT_SUCCESS(test_port_start(p, 0, 0), "");
		TEST_ASSERT_EQUAL(rte_eth_timesync_enable(p), -ENOTSUP, "%s", cases[i]);
		TEST_ASSERT_EQUAL(rte_eth_timesync_read_time(p, &ts), -ENOTSUP, "%s", cases[i]);
		TEST_ASSERT_EQUAL(rte_eth_timesync_adjust_time(p, 1), -ENOTSUP, "%s", cases[i]);
		if (!tstamp)
			TEST_ASSERT(test_port_start(p, RTE_ETH_RX_OFFLOAD_TIMESTAMP, 0) != 0,
				    "%s: the timestamp offload taken", cases[i]);
		rte_eth_dev_stop(p);
		test_port_destroy("net_refnic_tc");
	}
	return TEST_SUCCESS;
}

const struct unit_test_suite refnic_timesync_suite = {
	.name = "timesync",
	.setup = ts_setup,
	.teardown = ts_teardown,
	.cases = {
		TEST_CASE(test_rx_timestamp_offered),
		TEST_CASE(test_rx_stamps_monotonic_within_read_clock),
		TEST_CASE(test_read_clock_rate),
		TEST_CASE(test_timesync_adjust_read_write),
		TEST_CASE(test_ptp_rx_latch_takes_event_messages_only),
		TEST_CASE(test_ptp_flag_on_the_default_rx),
		TEST_CASE(test_ptp_tx_latch_takes_marked_packets),
		TEST_CASE(test_caps_off),
		TEST_CASES_END()
	},
};
