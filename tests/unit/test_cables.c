/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Cables that leave the process: shm (both of its ends in this process
 * here; tests/integration has the two-process runs) and TAP (the kernel
 * side through an AF_PACKET socket).
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_malloc.h>

#include "refnic_emu_cable_shm.h"
#include "refnic_emu_cable_shm_priv.h"
#include "refnic_emu_cable_vxlan.h"
#include "test_common.h"

#define CB_A		"net_refnic_c0"
#define CB_B		"net_refnic_c1"
#define CB_C		"net_refnic_c2"
#define CB_TAP		"net_refnic_ct"

static struct rte_ether_addr any_dst = {{ 0x02, 0, 0, 0, 0, 9 }};

/* Unique per run: other test runs may use shm cables at the same time. */
static void
cable_args(char *buf, size_t len, const char *kind)
{
	snprintf(buf, len, "cable=%s:ut%d,profile=ideal", kind, (int)(getpid() % 100000));
}

static void
send_frames(uint16_t tx, uint16_t n, uint32_t seed, uint16_t nb_segs)
{
	struct rte_mbuf *pkts[TEST_BURST];
	uint16_t i;

	for (i = 0; i < n; i++)
		pkts[i] = test_make_pkt(&any_dst, 200 + i, seed + i, nb_segs);
	test_tx_all(tx, pkts, n);
}

/* Send n frames (seeds from seed) from tx; how many rx got byte-identical. */
static uint16_t
send_recv(uint16_t tx, uint16_t rx, uint16_t n, uint32_t seed, uint16_t nb_segs)
{
	struct rte_mbuf *pkts[TEST_BURST];
	uint16_t i, got, ok = 0;

	send_frames(tx, n, seed, nb_segs);
	got = test_rx_wait(rx, pkts, n);
	for (i = 0; i < got; i++) {
		ok += test_pkt_matches(pkts[i], &any_dst, 200 + i, seed + i);
		rte_pktmbuf_free(pkts[i]);
	}
	return ok;
}

/* Both ends of an shm cable: link, traffic both ways, a third end refused. */
static int
test_shm_both_ways(void)
{
	char args[64];
	uint16_t a, b, c;
	int ret;

	cable_args(args, sizeof(args), "shm");
	TEST_ASSERT_SUCCESS(test_port_create(CB_A, args, &a), "first end");
	TEST_ASSERT_SUCCESS(test_port_start(a, 0, 0), "");
	TEST_ASSERT(test_link_wait(a, RTE_ETH_LINK_DOWN), "no link without a far end");
	TEST_ASSERT_SUCCESS(test_port_create(CB_B, args, &b), "second end");
	TEST_ASSERT_SUCCESS(test_port_start(b, 0, 0), "");
	TEST_ASSERT(test_link_wait(a, RTE_ETH_LINK_UP) && test_link_wait(b, RTE_ETH_LINK_UP),
		    "link up");
	ret = test_port_create(CB_C, args, &c);
	TEST_ASSERT(ret != 0 && refnic_emu_lookup(CB_C) == NULL, "a third end was accepted");
	TEST_ASSERT_EQUAL(send_recv(a, b, TEST_BURST, 100, 1), TEST_BURST, "A to B");
	TEST_ASSERT_EQUAL(send_recv(b, a, TEST_BURST, 200, 3), TEST_BURST, "B to A, 3 segments");
	test_pair_destroy(CB_A, CB_B);
	return TEST_SUCCESS;
}

/* A file of len bytes, its byte i (i + seed) & 0xff. */
static int
piece_file(uint64_t len, uint8_t seed)
{
	uint8_t buf[4096];
	uint64_t off;
	unsigned int i;
	int fd = memfd_create("refnic_ut_piece", MFD_CLOEXEC);

	if (fd < 0 || ftruncate(fd, len) != 0)
		return -1;
	for (off = 0; off < len; off += sizeof(buf)) {
		for (i = 0; i < sizeof(buf); i++)
			buf[i] = (uint8_t)(off + i + seed);
		if (pwrite(fd, buf, sizeof(buf), off) != (ssize_t)sizeof(buf))
			return -1;
	}
	return fd;
}

/*
 * The far end's memory as a hugepage primary with IOVA as PA hands it
 * over: one file a page, pages that follow each other in IOVA arriving one
 * after the other; an IOVA-contiguous ring (or mbuf) may span two of them.
 * Through the view, a range across the seam is one mapping whose bytes are
 * both files' (it used to be none: "rings outside the memory it handed
 * over", the far end's queue never delivered to). A range across a hole
 * in IOVA, or past the end, maps to nothing.
 */
static int
test_shm_view_spans_pieces(void)
{
	const uint64_t page = 2u << 20, base = UINT64_C(0x7c000000);
	struct shm_view *sv = rte_zmalloc("ut_view", sizeof(*sv), RTE_CACHE_LINE_SIZE);
	int fd_a = piece_file(page, 0), fd_b = piece_file(page, 0x55);
	int fd_c = piece_file(page, 0xaa);
	uint8_t *p;
	uint32_t i;

	TEST_ASSERT(sv != NULL && fd_a >= 0 && fd_b >= 0 && fd_c >= 0, "set-up");
	sv->link.kick_fd[0] = -1;
	/* A, then B right after it in IOVA, then C past a hole; A again. */
	TEST_ASSERT_SUCCESS(refnic_emu_cable_shm_view_add(sv, base, page, fd_a, 0), "A");
	TEST_ASSERT_SUCCESS(refnic_emu_cable_shm_view_add(sv, base + page, page, fd_b, 0), "B");
	TEST_ASSERT_SUCCESS(refnic_emu_cable_shm_view_add(sv, base + 4 * page, page, fd_c, 0), "C");
	TEST_ASSERT_SUCCESS(refnic_emu_cable_shm_view_add(sv, base, page, fd_a, 0), "A again");
	close(fd_a);
	close(fd_b);
	close(fd_c);

	/* 16 KiB, as a ring of 1024 descriptors, across A's end and B's start. */
	p = refnic_emu_cable_shm_view_map(sv, base + page - 8192, 16384, NULL, NULL);
	TEST_ASSERT(p != NULL, "a ring across two pieces that follow in IOVA is not reached");
	for (i = 0; i < 16384; i++) {
		uint8_t want = i < 8192 ? (uint8_t)(page - 8192 + i) :
					  (uint8_t)(i - 8192 + 0x55);

		TEST_ASSERT_EQUAL(p[i], want, "byte %u across the seam is not the far end's", i);
	}
	p = refnic_emu_cable_shm_view_map(sv, base + 4 * page + 100, 64, NULL, NULL);
	TEST_ASSERT(p != NULL && p[0] == (uint8_t)(100 + 0xaa), "C");
	TEST_ASSERT(refnic_emu_cable_shm_view_map(sv, base + 2 * page - 64, 128, NULL, NULL) == NULL,
		    "a range into the hole after B");
	TEST_ASSERT(refnic_emu_cable_shm_view_map(sv, base + 5 * page - 64, 128, NULL, NULL) == NULL,
		    "a range past C");
	TEST_ASSERT(refnic_emu_cable_shm_view_map(sv, base - 64, 128, NULL, NULL) == NULL,
		    "a range before A");
	refnic_emu_cable_shm_view_free(sv);
	return TEST_SUCCESS;
}

/*
 * Two ports cabled by VXLAN over lo: link up at once (no far end needed),
 * traffic both ways (segmented frames gathered), and a third port on A's
 * local address and port refused: it would take some of A's datagrams.
 */
static int
test_vxlan_both_ways(void)
{
	unsigned int pa = 20000 + getpid() % 20000, pb = pa + 1;
	char args_a[128], args_b[128];
	uint16_t a, b, c;
	int ret;

	snprintf(args_a, sizeof(args_a), "cable=vxlan:127.0.0.1:%u,vxlan_local=127.0.0.1:%u,"
		 "vxlan_vni=9", pb, pa);
	snprintf(args_b, sizeof(args_b), "cable=vxlan:127.0.0.1:%u,vxlan_local=127.0.0.1:%u,"
		 "vxlan_vni=9", pa, pb);
	TEST_ASSERT_SUCCESS(test_port_create(CB_A, args_a, &a), "first end");
	TEST_ASSERT_SUCCESS(test_port_start(a, 0, 0), "");
	TEST_ASSERT(test_link_wait(a, RTE_ETH_LINK_UP), "link up once bound");
	TEST_ASSERT_SUCCESS(test_port_create(CB_B, args_b, &b), "second end");
	TEST_ASSERT_SUCCESS(test_port_start(b, 0, 0), "");
	ret = test_port_create(CB_C, args_a, &c);
	TEST_ASSERT(ret != 0 && refnic_emu_lookup(CB_C) == NULL, "A's address taken twice");
	rte_vdev_uninit(CB_C);
	TEST_ASSERT_EQUAL(send_recv(a, b, TEST_BURST, 100, 1), TEST_BURST, "A to B");
	TEST_ASSERT_EQUAL(send_recv(b, a, TEST_BURST, 200, 3), TEST_BURST, "B to A, 3 segments");
	test_pair_destroy(CB_A, CB_B);
	return TEST_SUCCESS;
}

/*
 * Datagrams the kernel drops while the engine is away (its socket's queue
 * full) are counted: with the data path stalled, more datagrams than the
 * queue holds arrive; once it runs again, every one is accounted for,
 * delivered or dropped, exactly.
 */
static int
test_vxlan_socket_overflow_counted(void)
{
	const unsigned int sent = 30000;
	unsigned int pa = 20000 + (getpid() + 7) % 20000, i;
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(pa),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	uint8_t dgram[REFNIC_VXLAN_HLEN + 60] = { 0 };
	struct rte_mbuf *pkts[32];
	struct refnic_emu *emu;
	uint64_t got = 0, dropped = 0, no_buf = 0, deadline;
	char args[128];
	uint16_t a, n;
	int fd;

	snprintf(args, sizeof(args), "cable=vxlan:127.0.0.1:%u,vxlan_local=127.0.0.1:%u,"
		 "vxlan_vni=9", pa + 1, pa);
	TEST_ASSERT_SUCCESS(test_port_create(CB_A, args, &a), "");
	TEST_ASSERT_SUCCESS(test_port_start(a, 0, 0), "");
	emu = refnic_emu_lookup(CB_A);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	TEST_ASSERT(fd >= 0 && emu != NULL, "");
	refnic_emu_cable_vxlan_hdr_init((struct refnic_vxlan_hdr *)dgram, 9);
	memset(dgram + REFNIC_VXLAN_HLEN, 0xff, 6);	/* broadcast */
	refnic_emu_set_dataplane_paused(emu, true);
	for (i = 0; i < sent; i++)
		TEST_ASSERT(sendto(fd, dgram, sizeof(dgram), 0, (struct sockaddr *)&to,
				   sizeof(to)) == sizeof(dgram), "send %u", i);
	close(fd);
	refnic_emu_set_dataplane_paused(emu, false);
	deadline = rte_get_timer_cycles() + 20 * rte_get_timer_hz();
	do {
		while ((n = rte_eth_rx_burst(a, 0, pkts, RTE_DIM(pkts))) != 0) {
			got += n;
			rte_pktmbuf_free_bulk(pkts, n);
		}
		dropped = test_xstat(a, "cable_rx_dropped");
		no_buf = test_xstat(a, "rx_no_buffer");
	} while (got + dropped + no_buf < sent && rte_get_timer_cycles() < deadline);
	test_port_destroy(CB_A);
	TEST_ASSERT(dropped > 0, "the socket's queue never overflowed (%" PRIu64 " taken, %"
		    PRIu64 " no buffer)", got, no_buf);
	TEST_ASSERT_EQUAL(got + dropped + no_buf, sent, "taken %" PRIu64 ", dropped %" PRIu64
			  ", no buffer %" PRIu64 " of %u", got, dropped, no_buf, sent);
	return TEST_SUCCESS;
}

/* A and B on one shm cable, started, link up. args gets the devargs. */
static int
shm_pair_up(char *args, size_t len, uint16_t *a, uint16_t *b)
{
	cable_args(args, len, "shm");
	TEST_ASSERT_SUCCESS(test_port_create(CB_A, args, a), "");
	TEST_ASSERT_SUCCESS(test_port_create(CB_B, args, b), "");
	TEST_ASSERT_SUCCESS(test_port_start(*a, 0, 0), "");
	TEST_ASSERT_SUCCESS(test_port_start(*b, 0, 0), "");
	TEST_ASSERT(test_link_wait(*a, RTE_ETH_LINK_UP), "link up");
	return TEST_SUCCESS;
}

/*
 * A and B on one shm cable, started, link up, and 8 frames from A delivered
 * into B's ring, which B's application has not read. args gets the devargs.
 */
static int
shm_frames_delivered(char *args, size_t len, uint16_t *a, uint16_t *b)
{
	TEST_ASSERT_SUCCESS(shm_pair_up(args, len, a, b), "");
	/* A's TX doorbell delivers as soon as B's memory has reached A. */
	TEST_ASSERT_EQUAL(send_recv(*a, *b, TEST_BURST, 50, 1), TEST_BURST, "A to B");
	send_frames(*a, 8, 300, 1);
	TEST_ASSERT_EQUAL(test_hw_counter_wait(CB_B, offsetof(struct refnic_hw_stats,
							      q[0].rx_packets), TEST_BURST + 8),
			  TEST_BURST + 8, "B's device received them");
	return TEST_SUCCESS;
}

/*
 * One end goes and comes back (a new attachment, as a restarted process
 * makes): the other end's link goes down and up, what it sends meanwhile is
 * dropped and counted, and only frames sent to the new attachment reach it.
 */
static int
test_shm_restart_drops_stale_frames(void)
{
	struct refnic_hw_stats hw;
	char args[64];
	uint16_t a, b;

	TEST_ASSERT_SUCCESS(shm_frames_delivered(args, sizeof(args), &a, &b), "");
	test_port_destroy(CB_B);
	TEST_ASSERT(test_link_wait(a, RTE_ETH_LINK_DOWN), "link down when B goes");
	/* Without a far end, frames are lost on the way, and counted. */
	send_frames(a, 4, 350, 1);
	TEST_ASSERT_EQUAL(test_hw_counter_wait(CB_A, offsetof(struct refnic_hw_stats,
							      cable_tx_dropped), 4), 4, "");
	TEST_ASSERT_EQUAL(test_xstat(a, "cable_tx_dropped"), 4, "xstat cable_tx_dropped");

	TEST_ASSERT_SUCCESS(test_port_create(CB_B, args, &b), "B again");
	TEST_ASSERT_SUCCESS(test_port_start(b, 0, 0), "");
	TEST_ASSERT(test_link_wait(a, RTE_ETH_LINK_UP), "link up when B is back");
	/* Only the new frames arrive, in order, and nothing else after them. */
	TEST_ASSERT_EQUAL(send_recv(a, b, TEST_BURST, 400, 1), TEST_BURST, "new frames");
	test_hw_stats(CB_B, &hw);
	TEST_ASSERT_EQUAL(hw.q[0].rx_packets, TEST_BURST, "B received the stale frames");
	test_pair_destroy(CB_A, CB_B);
	return TEST_SUCCESS;
}

/*
 * No thread carries frames: the sender's own doorbell delivers into the
 * far end's ring, so no engine counted any frame, on either side (an
 * engine's counters are its shard of the device's; the far end's
 * deliveries count in the receiver's, by the sender's shard).
 */
static int
test_shm_delivery_needs_no_engine(void)
{
	struct refnic_hw_stats hw, eng;
	const char *dev[2] = { CB_A, CB_B };
	char args[64];
	unsigned int e, d;
	uint16_t a, b;

	TEST_ASSERT_SUCCESS(shm_frames_delivered(args, sizeof(args), &a, &b), "");
	TEST_ASSERT_EQUAL(send_recv(b, a, TEST_BURST, 500, 2), TEST_BURST, "B to A");
	test_hw_stats(CB_A, &hw);
	TEST_ASSERT_EQUAL(hw.q[0].tx_packets, TEST_BURST + 8, "A sent");
	TEST_ASSERT_EQUAL(hw.q[0].rx_packets, TEST_BURST, "A received");
	for (d = 0; d < RTE_DIM(dev); d++)
		for (e = 0; e < REFNIC_EMU_MAX_ENGINES; e++) {
			TEST_ASSERT_SUCCESS(refnic_emu_read_engine_stats(refnic_emu_lookup(dev[d]),
									 e, &eng), "");
			TEST_ASSERT_EQUAL(eng.q[0].tx_packets + eng.q[0].rx_packets, 0,
					  "%s: engine %u carried frames", dev[d], e);
		}
	test_pair_destroy(CB_A, CB_B);
	return TEST_SUCCESS;
}

/* The cable's file of an shm run's devargs, mapped (MAP_FAILED: not). */
static struct shm_layout *
shm_file_map(const char *args)
{
	struct shm_layout *shm;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), REFNIC_SHM_PATH_FMT, strchr(args, ':') + 1);
	*strchr(path, ',') = '\0';
	fd = shm_open(path, O_RDWR, 0);
	if (fd < 0)
		return MAP_FAILED;
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return shm;
}

/*
 * The far end writes over the set-up B published for its RX queue (the
 * queue's generation, in the cable's file) after B's driver has taken
 * frames from it: B's device takes the set-up back and fails the queue,
 * since where delivery stood is lost with it, and the driver's recovery
 * starts the ring afresh on both sides. Every frame sent afterwards
 * arrives, for four laps of the ring. (Published anew from its first slot
 * without the failure, the ring had the far end write where B's driver no
 * longer looks.)
 */
static int
test_shm_far_end_writes_over_queue_setup(void)
{
	struct shm_layout *shm;
	char args[64];
	uint64_t deadline;
	uint16_t a, b, i;

	TEST_ASSERT_SUCCESS(shm_pair_up(args, sizeof(args), &a, &b), "");
	for (i = 0; i < 6; i++)
		TEST_ASSERT_EQUAL(send_recv(a, b, TEST_BURST, 100 * i, 1), TEST_BURST, "A to B");

	shm = shm_file_map(args);
	TEST_ASSERT(shm != MAP_FAILED, "the cable's file: %s", strerror(errno));
	/* B attached second: end 1. An even generation, as a settled one. */
	__atomic_fetch_add(&shm->port[1].q[0].gen, 2, __ATOMIC_SEQ_CST);
	munmap(shm, sizeof(*shm));

	deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	while (test_xstat(b, "recoveries") == 0 && rte_get_timer_cycles() < deadline)
		rte_delay_ms(1);
	TEST_ASSERT_EQUAL(test_xstat(b, "queue_errors"), 1, "B's device failed the queue");
	TEST_ASSERT_EQUAL(test_xstat(b, "recoveries"), 1, "B's driver recovered");
	TEST_ASSERT(test_link_wait(a, RTE_ETH_LINK_UP), "link up again");
	/* Four laps of the ring: a ring out of step shows at its wrap too. */
	for (i = 0; i < 4 * TEST_RING_SIZE / TEST_BURST; i++)
		TEST_ASSERT_EQUAL(send_recv(a, b, TEST_BURST, 1000 + 100 * i, 1), TEST_BURST,
				  "A to B after the far end wrote over B's queue (burst %u)", i);
	test_pair_destroy(CB_A, CB_B);
	return TEST_SUCCESS;
}

/*
 * A sender leaves the far end's RX ring when its burst is done: B's ring's
 * busy word in the file (what B's process waits on) is clear once A's
 * burst returned, and B stops and starts its RX queue without waiting out
 * a sender that never left ("stays in an RX ring" logged, 100 ms lost per
 * queue). Frames flow again after the restart.
 */
static int
test_shm_sender_leaves_ring(void)
{
	static char log[16384];
	unsigned int waited;
	uint16_t a, b, again;
	struct shm_layout *shm;
	char args[64];
	uint32_t busy;
	FILE *f;

	TEST_ASSERT_SUCCESS(shm_pair_up(args, sizeof(args), &a, &b), "");
	TEST_ASSERT_EQUAL(send_recv(a, b, TEST_BURST, 100, 1), TEST_BURST, "A to B");
	shm = shm_file_map(args);
	TEST_ASSERT(shm != MAP_FAILED, "the cable's file: %s", strerror(errno));
	/* B attached second: end 1. */
	busy = __atomic_load_n(&shm->port[1].q[0].busy, __ATOMIC_SEQ_CST);
	munmap(shm, sizeof(*shm));

	f = test_log_capture_start(log, sizeof(log));
	TEST_ASSERT_SUCCESS(rte_eth_dev_rx_queue_stop(b, 0), "");
	TEST_ASSERT_SUCCESS(rte_eth_dev_rx_queue_start(b, 0), "");
	test_log_capture_stop(f);
	waited = test_log_count(log, "stays in an RX ring", NULL);
	again = send_recv(a, b, TEST_BURST, 200, 1);
	test_pair_destroy(CB_A, CB_B);
	TEST_ASSERT_EQUAL(busy, 0, "A's burst returned, still in B's ring (busy %#x)", busy);
	TEST_ASSERT_EQUAL(waited, 0, "B waited for a sender that had left:\n%s", log);
	TEST_ASSERT_EQUAL(again, TEST_BURST, "A to B after B's queue restarted");
	return TEST_SUCCESS;
}

/* The kernel side of a TAP cable, seen through a packet socket. */
static int
tap_socket(const char *ifname)
{
	struct ifreq ifr = { .ifr_flags = 0 };
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct timeval tv = { .tv_sec = TEST_WAIT_S };
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));

	if (fd < 0)
		return -errno;
	strlcpy(ifr.ifr_name, ifname, sizeof(ifr.ifr_name));
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) != 0)
		goto fail;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) != 0)
		goto fail;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = if_nametoindex(ifname);
	if (sll.sll_ifindex == 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) != 0)
		goto fail;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
fail:
	close(fd);
	return -errno;
}

/* Frames cross both ways between the port and the kernel's interface. */
static int
test_tap_both_ways(void)
{
	uint8_t frame[256], got[512];
	struct rte_mbuf *m;
	char args[64], ifname[IFNAMSIZ];
	uint16_t port, i;
	ssize_t len = 0;
	bool found = false;
	int fd, ret;

	if (access("/dev/net/tun", R_OK | W_OK) != 0) {
		printf("no /dev/net/tun here: TAP cable not tested\n");
		return TEST_SKIPPED;
	}
	snprintf(ifname, sizeof(ifname), "rfut%d", (int)(getpid() % 100000));
	snprintf(args, sizeof(args), "cable=tap:%s,profile=ideal", ifname);
	ret = test_port_create(CB_TAP, args, &port);
	if (ret == -EPERM || ret == -EACCES) {
		printf("no permission to create TAP interfaces: TAP cable not tested\n");
		return TEST_SKIPPED;
	}
	TEST_ASSERT_SUCCESS(ret, "TAP cable refused");
	TEST_ASSERT_SUCCESS(test_port_start(port, 0, 0), "");
	TEST_ASSERT(test_link_wait(port, RTE_ETH_LINK_UP), "link up");
	fd = tap_socket(ifname);
	if (fd < 0) {
		test_port_destroy(CB_TAP);
		TEST_ASSERT(false, "kernel side of %s: %s", ifname, strerror(-fd));
	}

	/* Kernel to port; the kernel may send its own frames (IPv6 DAD...). */
	memset(frame, 0xff, RTE_ETHER_ADDR_LEN);
	memset(frame + RTE_ETHER_ADDR_LEN, 0x02, RTE_ETHER_ADDR_LEN);
	frame[12] = TEST_ETHERTYPE >> 8;
	frame[13] = TEST_ETHERTYPE & 0xff;
	for (i = 14; i < sizeof(frame); i++)
		frame[i] = i;
	ret = send(fd, frame, sizeof(frame), 0) == (ssize_t)sizeof(frame) ? 0 : -errno;
	for (i = 0; ret == 0 && !found && i < 100 && test_rx_wait(port, &m, 1) == 1; i++) {
		found = m->pkt_len == sizeof(frame) &&
			memcmp(rte_pktmbuf_mtod(m, void *), frame, sizeof(frame)) == 0;
		rte_pktmbuf_free(m);
	}
	TEST_ASSERT(ret == 0, "send on %s failed: %s", ifname, strerror(-ret));
	TEST_ASSERT(found, "the kernel's frame did not reach the port");

	/* Port to kernel. */
	m = test_make_pkt(&any_dst, 300, 77, 2);
	TEST_ASSERT_EQUAL(test_tx_all(port, &m, 1), 1, "");
	while ((len = recv(fd, got, sizeof(got), 0)) > 0)
		if (len == 300 && got[12] == TEST_ETHERTYPE >> 8 && got[13] == (TEST_ETHERTYPE & 0xff))
			break;
	close(fd);
	test_port_destroy(CB_TAP);
	TEST_ASSERT_EQUAL(len, 300, "the port's frame did not reach the kernel");
	/* The kernel unregisters the interface a moment after the last close. */
	for (i = 0; i < 1000 && if_nametoindex(ifname) != 0; i++)
		rte_delay_ms(5);
	TEST_ASSERT(if_nametoindex(ifname) == 0, "%s outlived its port", ifname);
	return TEST_SUCCESS;
}

/* Cables whose other end cannot be made fail the probe, leaving nothing. */
static int
test_bad_cables(void)
{
	static const char * const bad[] = {
		"cable=shm:", "cable=tap:", "cable=usb:x", "cable=shm:a/b",
		"cable=tap:name-far-too-long", "cable=shm:x:y",
		/* vxlan: addresses, ports, VNIs, keys without the cable, a
		 * local address of the other family or not this host's. */
		"cable=vxlan:", "cable=vxlan:10.0.0", "cable=vxlan:10.0.0.1:0",
		"cable=vxlan:10.0.0.1:65536", "cable=vxlan:10.0.0.1:x", "cable=vxlan:::1",
		"cable=vxlan:[::1", "cable=vxlan:[::1]x", "cable=vxlan:[10.0.0.1]",
		"cable=vxlan:127.0.0.1,vxlan_vni=16777216", "cable=vxlan:127.0.0.1,vxlan_vni=-1",
		"vxlan_vni=5", "cable=loopback,vxlan_local=127.0.0.1",
		"cable=vxlan:127.0.0.1,vxlan_local=[::1]:4789",
		"cable=vxlan:127.0.0.1,vxlan_local=192.0.2.77",
	};
	uint16_t port;
	unsigned int i;

	for (i = 0; i < RTE_DIM(bad); i++) {
		TEST_ASSERT(test_port_create(CB_C, bad[i], &port) != 0, "'%s' was accepted", bad[i]);
		TEST_ASSERT(refnic_emu_lookup(CB_C) == NULL, "'%s' left a device", bad[i]);
		rte_vdev_uninit(CB_C);
	}
	return TEST_SUCCESS;
}

const struct unit_test_suite refnic_cables_suite = {
	.name = "cables",
	.cases = {
		TEST_CASE(test_shm_both_ways),
		TEST_CASE(test_shm_restart_drops_stale_frames),
		TEST_CASE(test_shm_delivery_needs_no_engine),
		TEST_CASE(test_shm_far_end_writes_over_queue_setup),
		TEST_CASE(test_shm_sender_leaves_ring),
		TEST_CASE(test_shm_view_spans_pieces),
		TEST_CASE(test_tap_both_ways),
		TEST_CASE(test_vxlan_both_ways),
		TEST_CASE(test_vxlan_socket_overflow_counted),
		TEST_CASE(test_bad_cables),
		TEST_CASES_END()
	},
};
