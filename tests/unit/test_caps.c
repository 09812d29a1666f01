/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * A device without a capability (caps_off=) does not do its work, whatever
 * it is asked: the driver's own refusal (dev_info, configure, tx_prepare:
 * test_config.c) is not what these tests look at. Each asks the device
 * directly what the driver would not ask, and reads the answer off the
 * device: a TX descriptor asking for an offload, sent by tx_burst past
 * tx_prepare; an admin command on a bare device's own admin queue (the
 * "bench": no driver at all, only its registers, as a lab's register
 * poker would); a frame longer than one of the bench's RX buffers. Each
 * also runs on a device with the capability, so that what the device
 * refuses is the capability's absence, not the request.
 */

#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_memzone.h>

#include "refnic_emu.h"
#include "test_common.h"

#define CA		"net_refnic_capa"
#define CB		"net_refnic_capb"
#define BENCH		"refnic_caps_bench"
#define BENCH_CABLE	"refnic_caps_cable"
#define BENCH_AQ_DEPTH	8
#define BENCH_RX_RING	REFNIC_MIN_RING_SIZE
#define BENCH_BUF	REFNIC_MIN_RX_BUF_SIZE	/* a frame beyond needs two */
#define BENCH_AEQ_DEPTH	REFNIC_MIN_AEQ_DEPTH
#define BENCH_BUF_LEN	RTE_ALIGN(sizeof(struct refnic_hw_stats), 4096) /* admin replies */

/* A bare device and the host memory its rings live in. */
struct bench {
	struct refnic_emu *emu;
	struct refnic_emu_resources res;
	const struct rte_memzone *mz;
	struct refnic_admin_cmd *sq;
	struct refnic_admin_cpl *cq;
	uint8_t *buf;			/* admin reply buffer, BENCH_BUF_LEN */
	struct refnic_rx_desc *rx_ring;
	struct refnic_rx_cpl *rx_cq;
	uint8_t *rx_bufs;
	struct refnic_event *aeq;
	uint16_t tail;
	uint8_t phase;
};

static struct bench bench;
/* The next bench's timing profile; bench_destroy() puts back ideal. */
static enum refnic_emu_profile bench_profile = REFNIC_PROFILE_IDEAL;

/* Where each part lies in the memzone. */
#define OFF_SQ		0
#define OFF_CQ		(OFF_SQ + BENCH_AQ_DEPTH * sizeof(struct refnic_admin_cmd))
#define OFF_BUF		RTE_ALIGN(OFF_CQ + BENCH_AQ_DEPTH * sizeof(struct refnic_admin_cpl), 64)
#define OFF_RXR		(OFF_BUF + BENCH_BUF_LEN)
#define OFF_RXC		(OFF_RXR + BENCH_RX_RING * sizeof(struct refnic_rx_desc))
#define OFF_AEQ		(OFF_RXC + BENCH_RX_RING * sizeof(struct refnic_rx_cpl))
#define OFF_RXB		RTE_ALIGN(OFF_AEQ + BENCH_AEQ_DEPTH * sizeof(struct refnic_event), 64)
#define BENCH_MZ_LEN	(OFF_RXB + BENCH_RX_RING * BENCH_BUF)

/* A register store through the BAR and its trap, as a driver's is. */
static void
bench_write(uint32_t off, uint32_t val)
{
	__atomic_store_n((uint32_t *)(bench.res.bar0 + off), val, __ATOMIC_RELEASE);
	bench.res.trap(bench.res.trap_ctx, off, val);
}

static uint32_t
bench_read(uint32_t off)
{
	return __atomic_load_n((const uint32_t *)(bench.res.bar0 + off), __ATOMIC_ACQUIRE);
}

static uint64_t
bench_iova(uint32_t off)
{
	return bench.mz->iova + off;
}

static void
bench_destroy(void)
{
	if (bench.emu != NULL)
		refnic_emu_destroy(bench.emu);
	rte_memzone_free(bench.mz);
	memset(&bench, 0, sizeof(bench));
	bench_profile = REFNIC_PROFILE_IDEAL;
}

/*
 * A device lacking caps, cabled to BENCH_CABLE, reset and its admin queue
 * programmed; 0, or -1 with nothing left behind.
 */
static int
bench_create(uint64_t caps_off)
{
	struct refnic_emu_params p;
	uint32_t gen;
	uint64_t deadline;

	refnic_emu_params_default(&p);
	strlcpy(p.cable, BENCH_CABLE, sizeof(p.cable));
	p.caps_off = caps_off;
	p.profile = bench_profile;
	memset(&bench, 0, sizeof(bench));
	bench.mz = rte_memzone_reserve_aligned("refnic_caps_bench", BENCH_MZ_LEN, SOCKET_ID_ANY,
					       RTE_MEMZONE_IOVA_CONTIG, 4096);
	if (bench.mz == NULL || refnic_emu_create(BENCH, &p, &bench.emu) != 0) {
		printf("    bench: no memory or no device\n");
		bench_destroy();
		return -1;
	}
	refnic_emu_get_resources(bench.emu, &bench.res);
	memset(bench.mz->addr, 0, bench.mz->len);
	bench.sq = RTE_PTR_ADD(bench.mz->addr, OFF_SQ);
	bench.cq = RTE_PTR_ADD(bench.mz->addr, OFF_CQ);
	bench.buf = RTE_PTR_ADD(bench.mz->addr, OFF_BUF);
	bench.rx_ring = RTE_PTR_ADD(bench.mz->addr, OFF_RXR);
	bench.rx_cq = RTE_PTR_ADD(bench.mz->addr, OFF_RXC);
	bench.aeq = RTE_PTR_ADD(bench.mz->addr, OFF_AEQ);
	bench.rx_bufs = RTE_PTR_ADD(bench.mz->addr, OFF_RXB);
	bench.phase = REFNIC_PHASE_BIT;

	gen = bench_read(REFNIC_REG_RESET_GEN);
	bench_write(REFNIC_REG_RESET, REFNIC_RESET_REQUEST);
	deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	while (bench_read(REFNIC_REG_RESET_GEN) == gen ||
	       (bench_read(REFNIC_REG_STATUS) & REFNIC_STATUS_STATE_MASK) != REFNIC_STATE_READY) {
		if (rte_get_timer_cycles() > deadline) {
			printf("    bench: not ready after reset\n");
			bench_destroy();
			return -1;
		}
		rte_delay_us_sleep(100);
	}
	bench_write(REFNIC_REG_AQ_BASE_LO, (uint32_t)bench_iova(OFF_SQ));
	bench_write(REFNIC_REG_AQ_BASE_HI, (uint32_t)(bench_iova(OFF_SQ) >> 32));
	bench_write(REFNIC_REG_AQ_DEPTH, BENCH_AQ_DEPTH);
	bench_write(REFNIC_REG_ACQ_BASE_LO, (uint32_t)bench_iova(OFF_CQ));
	bench_write(REFNIC_REG_ACQ_BASE_HI, (uint32_t)(bench_iova(OFF_CQ) >> 32));
	bench_write(REFNIC_REG_ACQ_DEPTH, BENCH_AQ_DEPTH);
	return 0;
}

/* One admin command, as it is; its status, or UINT16_MAX if none came. */
static uint16_t
bench_cmd(struct refnic_admin_cmd *cmd, uint32_t *result)
{
	uint16_t slot = bench.tail;
	struct refnic_admin_cpl *cpl = &bench.cq[slot];
	uint64_t deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();

	cmd->cmd_id = 0x100 + slot;
	bench.sq[slot] = *cmd;
	bench.tail = (bench.tail + 1) % BENCH_AQ_DEPTH;
	bench_write(REFNIC_REG_AQ_TAIL, bench.tail);
	while ((__atomic_load_n(&cpl->phase, __ATOMIC_ACQUIRE) & REFNIC_PHASE_BIT) != bench.phase) {
		if (rte_get_timer_cycles() > deadline)
			return UINT16_MAX;
		rte_delay_us_sleep(10);
	}
	if (bench.tail == 0)
		bench.phase ^= REFNIC_PHASE_BIT;
	if (result != NULL)
		*result = cpl->result;
	return cpl->cmd_id == cmd->cmd_id ? cpl->status : UINT16_MAX;
}

static uint16_t
bench_cmd_value(uint8_t opcode, uint32_t value, uint32_t *result)
{
	struct refnic_admin_cmd cmd = { .opcode = opcode };

	cmd.value = value;
	return bench_cmd(&cmd, result);
}

/* A command with the reply buffer; the buffer is filled with 0xa5 first. */
static uint16_t
bench_cmd_buf(uint8_t opcode, uint32_t len)
{
	struct refnic_admin_cmd cmd = { .opcode = opcode };

	memset(bench.buf, 0xa5, BENCH_BUF_LEN);
	cmd.buf.iova = bench_iova(OFF_BUF);
	cmd.buf.len = len;
	return bench_cmd(&cmd, NULL);
}

static bool
bench_buf_untouched(uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (bench.buf[i] != 0xa5)
			return false;
	return true;
}

static void
bench_stats(struct refnic_hw_stats *st)
{
	refnic_emu_read_stats(bench.emu, st);
}

/* ---- TX offloads asked in descriptors, past tx_prepare -------------------- */

static int
caps_pair(const char *caps_off, uint16_t *a, uint16_t *b)
{
	char args[128];

	snprintf(args, sizeof(args), "cable=" CA ",profile=ideal%s%s",
		 *caps_off != '\0' ? ",caps_off=" : "", caps_off);
	if (test_port_create(CA, args, a) != 0)
		return -1;
	snprintf(args, sizeof(args), "cable=" CA ",profile=ideal");
	if (test_port_create(CB, args, b) != 0 ||
	    test_port_start_offloads(*a, 0, 0, 0) != 0 ||
	    test_port_start_offloads(*b, 0, 0, 0) != 0) {
		test_pair_destroy(CA, CB);
		return -1;
	}
	return 0;
}

/*
 * Port A sends one packet whose descriptor asks for ol_flags, then a plain
 * one, by tx_burst (the burst trusts tx_prepare, which the application
 * skipped). *got: frames B received; *malformed: what A's device counted.
 */
static int
tx_asking(const char *caps_off, uint64_t ol_flags, uint16_t *got, uint64_t *malformed)
{
	struct rte_mbuf *m, *plain, *rx[4];
	struct refnic_hw_stats hw;
	uint16_t a, b, n;

	if (caps_pair(caps_off, &a, &b) != 0)
		return -1;
	m = test_make_l4_pkt(false, IPPROTO_UDP, false, 1, 100);
	plain = test_make_l4_pkt(false, IPPROTO_TCP, true, 1, 100);
	if (m == NULL || plain == NULL) {
		rte_pktmbuf_free(m);
		rte_pktmbuf_free(plain);
		test_pair_destroy(CA, CB);
		return -1;
	}
	m->ol_flags = ol_flags;
	m->l2_len = RTE_ETHER_HDR_LEN;
	m->l3_len = sizeof(struct rte_ipv4_hdr);
	m->vlan_tci = 42;
	if (test_tx_all(a, &m, 1) != 1 || test_tx_all(a, &plain, 1) != 1) {
		test_pair_destroy(CA, CB);
		return -1;
	}
	n = test_rx_wait(b, rx, RTE_DIM(rx));
	/* Anything else late would be counted too. */
	n += test_rx_wait_ms(b, rx + n, RTE_DIM(rx) - n, 20);
	rte_pktmbuf_free_bulk(rx, n);
	test_hw_stats(CA, &hw);
	*got = n;
	*malformed = hw.q[0].tx_malformed;
	test_pair_destroy(CA, CB);
	return 0;
}

/* Each TX offload's descriptor: sent by a device with it, dropped by one without. */
static int
tx_offload_case(const char *cap, uint64_t ol_flags)
{
	uint64_t malformed;
	uint16_t got;

	TEST_ASSERT_SUCCESS(tx_asking("", ol_flags, &got, &malformed), "");
	TEST_ASSERT(got == 2 && malformed == 0,
		    "with %s: B got %u frames (expected 2), tx_malformed %" PRIu64, cap, got,
		    malformed);
	TEST_ASSERT_SUCCESS(tx_asking(cap, ol_flags, &got, &malformed), "");
	TEST_ASSERT(got == 1 && malformed == 1,
		    "caps_off=%s: B got %u frames (expected the plain one), tx_malformed %"
		    PRIu64 " (expected 1)", cap, got, malformed);
	return TEST_SUCCESS;
}

static int
test_tx_csum(void)
{
	int ret = tx_offload_case("tx_csum", RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM);

	if (ret != TEST_SUCCESS)
		return ret;
	return tx_offload_case("tx_csum", RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_UDP_CKSUM);
}

static int
test_vlan_insert(void)
{
	return tx_offload_case("vlan_insert", RTE_MBUF_F_TX_VLAN);
}

/* ---- Switchable features: SET_FEATURES ----------------------------------- */

/* The bench asks to switch cap on: refused without it, taken with it. */
static int
feature_case(uint64_t cap, const char *name)
{
	uint32_t features = UINT32_MAX;
	uint16_t sts;

	TEST_ASSERT_SUCCESS(bench_create(0), "");
	sts = bench_cmd_value(REFNIC_ADMIN_SET_FEATURES, (uint32_t)cap, NULL);
	bench_cmd_value(REFNIC_ADMIN_GET_FEATURES, 0, &features);
	bench_destroy();
	TEST_ASSERT(sts == REFNIC_ADMIN_STS_OK && features == cap,
		    "with %s: SET_FEATURES status %u, features 0x%x", name, sts, features);

	TEST_ASSERT_SUCCESS(bench_create(cap), "");
	sts = bench_cmd_value(REFNIC_ADMIN_SET_FEATURES, (uint32_t)cap, NULL);
	features = UINT32_MAX;
	bench_cmd_value(REFNIC_ADMIN_GET_FEATURES, 0, &features);
	bench_destroy();
	TEST_ASSERT(sts == REFNIC_ADMIN_STS_UNSUPPORTED && features == 0,
		    "without %s: SET_FEATURES status %u (expected unsupported), features 0x%x",
		    name, sts, features);
	return TEST_SUCCESS;
}

static int
test_vlan_strip(void)
{
	return feature_case(REFNIC_CAP_VLAN_STRIP, "vlan_strip");
}

static int
test_rx_csum(void)
{
	return feature_case(REFNIC_CAP_RX_CSUM, "rx_csum");
}

static int
test_rx_ptype(void)
{
	return feature_case(REFNIC_CAP_RX_PTYPE, "rx_ptype");
}

/* VLAN filtering: the feature, and the filter table's commands. */
static int
test_vlan_filter(void)
{
	struct refnic_admin_cmd cmd = { .opcode = REFNIC_ADMIN_VLAN_FILTER_ADD };
	uint16_t add, del;
	int ret = feature_case(REFNIC_CAP_VLAN_FILTER, "vlan_filter");

	if (ret != TEST_SUCCESS)
		return ret;
	TEST_ASSERT_SUCCESS(bench_create(0), "");
	cmd.vlan_id = 100;
	add = bench_cmd(&cmd, NULL);
	cmd.opcode = REFNIC_ADMIN_VLAN_FILTER_DEL;
	del = bench_cmd(&cmd, NULL);
	bench_destroy();
	TEST_ASSERT(add == REFNIC_ADMIN_STS_OK && del == REFNIC_ADMIN_STS_OK,
		    "with vlan_filter: ADD %u, DEL %u", add, del);
	TEST_ASSERT_SUCCESS(bench_create(REFNIC_CAP_VLAN_FILTER), "");
	cmd.opcode = REFNIC_ADMIN_VLAN_FILTER_ADD;
	add = bench_cmd(&cmd, NULL);
	cmd.opcode = REFNIC_ADMIN_VLAN_FILTER_DEL;
	del = bench_cmd(&cmd, NULL);
	bench_destroy();
	TEST_ASSERT(add == REFNIC_ADMIN_STS_UNSUPPORTED && del == REFNIC_ADMIN_STS_UNSUPPORTED,
		    "without vlan_filter: ADD %u, DEL %u (expected unsupported)", add, del);
	return TEST_SUCCESS;
}

/* ---- Admin commands of a missing capability ------------------------------ */

/* Jumbo frames: IDENTIFY's MTU bound, and SET_MTU beyond 1500. */
static int
jumbo_case(uint64_t caps_off, uint16_t *max_mtu, uint16_t *sts_std, uint16_t *sts_jumbo)
{
	struct refnic_identify id;

	if (bench_create(caps_off) != 0)
		return -1;
	if (bench_cmd_buf(REFNIC_ADMIN_IDENTIFY, sizeof(id)) != REFNIC_ADMIN_STS_OK) {
		bench_destroy();
		return -1;
	}
	memcpy(&id, bench.buf, sizeof(id));
	*max_mtu = id.max_mtu;
	*sts_std = bench_cmd_value(REFNIC_ADMIN_SET_MTU, RTE_ETHER_MTU, NULL);
	*sts_jumbo = bench_cmd_value(REFNIC_ADMIN_SET_MTU, REFNIC_MAX_MTU, NULL);
	bench_destroy();
	return 0;
}

static int
test_jumbo(void)
{
	uint16_t max_mtu, std, jumbo;

	TEST_ASSERT_SUCCESS(jumbo_case(0, &max_mtu, &std, &jumbo), "");
	TEST_ASSERT(max_mtu == REFNIC_MAX_MTU && std == REFNIC_ADMIN_STS_OK &&
		    jumbo == REFNIC_ADMIN_STS_OK,
		    "with jumbo: max_mtu %u, SET_MTU 1500 %u, 9000 %u", max_mtu, std, jumbo);
	TEST_ASSERT_SUCCESS(jumbo_case(REFNIC_CAP_JUMBO, &max_mtu, &std, &jumbo), "");
	TEST_ASSERT(max_mtu == RTE_ETHER_MTU && std == REFNIC_ADMIN_STS_OK &&
		    jumbo == REFNIC_ADMIN_STS_UNSUPPORTED,
		    "without jumbo: max_mtu %u (expected 1500), SET_MTU 1500 %u, 9000 %u "
		    "(expected unsupported)", max_mtu, std, jumbo);
	return TEST_SUCCESS;
}

/* STATS_GET: the counters DMAed into the buffer, or refused, buffer as it was. */
static int
test_stats_dma(void)
{
	uint32_t len = sizeof(struct refnic_hw_stats);
	uint16_t sts;
	bool untouched;

	TEST_ASSERT_SUCCESS(bench_create(0), "");
	sts = bench_cmd_buf(REFNIC_ADMIN_STATS_GET, len);
	untouched = bench_buf_untouched(len);
	bench_destroy();
	TEST_ASSERT(sts == REFNIC_ADMIN_STS_OK && !untouched,
		    "with stats_dma: STATS_GET status %u, buffer %s", sts,
		    untouched ? "untouched" : "written");
	TEST_ASSERT_SUCCESS(bench_create(REFNIC_CAP_STATS_DMA), "");
	sts = bench_cmd_buf(REFNIC_ADMIN_STATS_GET, len);
	untouched = bench_buf_untouched(len);
	bench_destroy();
	TEST_ASSERT(sts == REFNIC_ADMIN_STS_UNSUPPORTED && untouched,
		    "without stats_dma: STATS_GET status %u (expected unsupported), buffer %s",
		    sts, untouched ? "untouched" : "written");
	return TEST_SUCCESS;
}

/* ---- Admin commands fetched in the doorbell store (1.5) ------------------- */

/* Post a NOP: what AQ_HEAD, AQ_DUE_US and the completion say as the
 * AQ_TAIL store returns; then the time until the completion came. */
struct due_look {
	uint32_t head;
	uint32_t due_us;
	bool posted;
	uint64_t took_us;	/* from just before the store */
	uint64_t charged_us;	/* the device's control_latency_us for it */
};

static int
bench_nop_look(struct due_look *l)
{
	struct refnic_admin_cpl *cpl = &bench.cq[bench.tail];
	struct refnic_admin_cmd cmd = { .opcode = REFNIC_ADMIN_NOP };
	uint64_t start, deadline;
	struct refnic_hw_stats hw;

	refnic_emu_read_stats(bench.emu, &hw);
	l->charged_us = hw.control_latency_us;
	cmd.cmd_id = 0x100 + bench.tail;
	bench.sq[bench.tail] = cmd;
	bench.tail = (bench.tail + 1) % BENCH_AQ_DEPTH;
	start = rte_get_timer_cycles();
	bench_write(REFNIC_REG_AQ_TAIL, bench.tail);
	l->head = bench_read(REFNIC_REG_AQ_HEAD);
	l->due_us = bench_read(REFNIC_REG_AQ_DUE_US);
	l->posted = (__atomic_load_n(&cpl->phase, __ATOMIC_ACQUIRE) & REFNIC_PHASE_BIT) ==
		    bench.phase;
	/* No second store: the device completes it by itself. */
	deadline = start + TEST_WAIT_S * rte_get_timer_hz();
	while ((__atomic_load_n(&cpl->phase, __ATOMIC_ACQUIRE) & REFNIC_PHASE_BIT) !=
	       bench.phase)
		if (rte_get_timer_cycles() > deadline)
			return -1;
	l->took_us = (rte_get_timer_cycles() - start) * 1000000 / rte_get_timer_hz();
	refnic_emu_read_stats(bench.emu, &hw);
	l->charged_us = hw.control_latency_us - l->charged_us;
	return 0;
}

/*
 * admin_due: the AQ_TAIL store fetches the command before it returns
 * (AQ_HEAD moved) and says its latency, the one the device charges; a
 * command without latency (ideal) is complete when the store returns; one
 * with latency (baremetal) completes by itself, not before that latency.
 * Without admin_due the capability is clear and AQ_DUE_US says nothing.
 */
static int
test_admin_due(void)
{
	struct due_look ideal, bare, off;
	uint32_t caps, caps_off;
	int r1, r2, r3;

	TEST_ASSERT_SUCCESS(bench_create(0), "");
	caps = bench_read(REFNIC_REG_CAPS_LO);
	r1 = bench_nop_look(&ideal);
	bench_destroy();
	bench_profile = REFNIC_PROFILE_BAREMETAL;
	TEST_ASSERT_SUCCESS(bench_create(0), "");
	r2 = bench_nop_look(&bare);
	bench_destroy();
	TEST_ASSERT_SUCCESS(bench_create(REFNIC_CAP_ADMIN_DUE), "");
	caps_off = bench_read(REFNIC_REG_CAPS_LO);
	r3 = bench_nop_look(&off);
	bench_destroy();
	TEST_ASSERT(r1 == 0 && r2 == 0 && r3 == 0, "a NOP never completed");
	printf("    ideal: head %u due %u us posted %d; baremetal: head %u due %u us "
	       "(charged %" PRIu64 ") posted %d, took %" PRIu64 " us; without: due %u\n",
	       ideal.head, ideal.due_us, ideal.posted, bare.head, bare.due_us, bare.charged_us,
	       bare.posted, bare.took_us, off.due_us);
	TEST_ASSERT((caps & REFNIC_CAP_ADMIN_DUE) && !(caps_off & REFNIC_CAP_ADMIN_DUE),
		    "capability bit: 0x%x with, 0x%x without", caps, caps_off);
	TEST_ASSERT(ideal.head == 1 && ideal.due_us == 0 && ideal.posted,
		    "ideal: not fetched and completed in the store");
	TEST_ASSERT(bare.head == 1 && bare.due_us > 0 && bare.due_us == bare.charged_us,
		    "baremetal: not fetched in the store, or AQ_DUE_US is not its latency");
	TEST_ASSERT(bare.took_us >= bare.due_us, "baremetal: completed before its latency");
	TEST_ASSERT_EQUAL(off.due_us, 0, "without admin_due: AQ_DUE_US %u", off.due_us);
	return TEST_SUCCESS;
}

/* ---- Events and fault reports -------------------------------------------- */

/* Program the bench's event queue and enable it, as a driver with AEQ would. */
static void
bench_aeq_enable(void)
{
	/* The engine dozing (idle 2 ms and more), a kick takes it a while: only
	 * the device's keeping the stores' order latches the ring in time. */
	rte_delay_us_sleep(5000);
	bench_write(REFNIC_REG_AEQ_BASE_LO, (uint32_t)bench_iova(OFF_AEQ));
	bench_write(REFNIC_REG_AEQ_BASE_HI, (uint32_t)(bench_iova(OFF_AEQ) >> 32));
	bench_write(REFNIC_REG_AEQ_DEPTH, BENCH_AEQ_DEPTH);
	bench_write(REFNIC_REG_AEQ_CTRL, REFNIC_AEQ_CTRL_ENABLE);
	/* The ring is latched before a command stored after it runs: a NOP. */
	bench_cmd_value(REFNIC_ADMIN_NOP, 0, NULL);
}

/* Wait until the device counted `want` events, posted or dropped. */
static uint64_t
bench_events_wait(uint64_t want)
{
	uint64_t deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz() / 10;
	struct refnic_hw_stats st;

	do {
		bench_stats(&st);
		if (st.events_posted + st.events_dropped >= want)
			break;
		rte_delay_us_sleep(100);
	} while (rte_get_timer_cycles() < deadline);
	return st.events_posted + st.events_dropped;
}

/*
 * The device fails (injected) with an event queue programmed: *code, the
 * FATAL_CODE it shows; *posted, *dropped, its event counts; *in_ring,
 * whether the first ring entry holds a FATAL event; *fatal, STATUS's state.
 */
static int
fatal_case(uint64_t caps_off, uint32_t *code, uint64_t *posted, uint64_t *dropped,
	   bool *in_ring, bool *fatal)
{
	struct refnic_hw_stats st;

	if (bench_create(caps_off) != 0)
		return -1;
	bench_aeq_enable();
	refnic_emu_inject_fatal(bench.emu);
	bench_events_wait(1);
	bench_stats(&st);
	*code = bench_read(REFNIC_REG_FATAL_CODE);
	*posted = st.events_posted;
	*dropped = st.events_dropped;
	*in_ring = (__atomic_load_n(&bench.aeq[0].phase, __ATOMIC_ACQUIRE) & REFNIC_PHASE_BIT) &&
		   bench.aeq[0].type == REFNIC_EVENT_FATAL;
	*fatal = (bench_read(REFNIC_REG_STATUS) & REFNIC_STATUS_STATE_MASK) == REFNIC_STATE_FATAL;
	bench_destroy();
	return 0;
}

/* Without the event queue its registers latch nothing: events are dropped. */
static int
test_aeq(void)
{
	uint64_t posted, dropped;
	bool in_ring, fatal;
	uint32_t code;

	TEST_ASSERT_SUCCESS(fatal_case(0, &code, &posted, &dropped, &in_ring, &fatal), "");
	TEST_ASSERT(posted == 1 && dropped == 0 && in_ring,
		    "with aeq: %" PRIu64 " events posted, %" PRIu64 " dropped, %s in the ring",
		    posted, dropped, in_ring ? "one" : "none");
	TEST_ASSERT_SUCCESS(fatal_case(REFNIC_CAP_AEQ, &code, &posted, &dropped, &in_ring,
				       &fatal), "");
	TEST_ASSERT(posted == 0 && dropped == 1 && !in_ring,
		    "without aeq: %" PRIu64 " events posted (expected 0), %" PRIu64
		    " dropped (expected 1), %s in the ring", posted, dropped,
		    in_ring ? "one" : "none");
	return TEST_SUCCESS;
}

/* Without fault reports the device still fails (STATUS) but says nothing more. */
static int
test_fault_report(void)
{
	uint64_t posted, dropped;
	bool in_ring, fatal;
	uint32_t code;

	TEST_ASSERT_SUCCESS(fatal_case(0, &code, &posted, &dropped, &in_ring, &fatal), "");
	TEST_ASSERT(fatal && code == REFNIC_FATAL_INJECTED && posted == 1 && in_ring,
		    "with fault_report: %s, code %u, %" PRIu64 " events", fatal ? "fatal" : "alive",
		    code, posted);
	TEST_ASSERT_SUCCESS(fatal_case(REFNIC_CAP_FAULT_REPORT, &code, &posted, &dropped,
				       &in_ring, &fatal), "");
	TEST_ASSERT(fatal && code == REFNIC_FATAL_NONE && posted == 0 && dropped == 0 &&
		    !in_ring,
		    "without fault_report: %s, code %u (expected none), %" PRIu64 " events "
		    "posted, %" PRIu64 " dropped (expected none)", fatal ? "fatal" : "alive",
		    code, posted, dropped);
	return TEST_SUCCESS;
}

/* ---- RX scatter ---------------------------------------------------------- */

/*
 * The bench's RX queue 0, promiscuous, BENCH_BUF-byte buffers (the
 * contract's smallest), cabled to port CA; CA sends one frame of len bytes,
 * more than a buffer. *cpls: completions the bench wrote; *st: its counters.
 */
static int
scatter_case(uint64_t caps_off, uint32_t len, unsigned int *cpls, struct refnic_hw_stats *st)
{
	struct refnic_admin_cmd cmd = { .opcode = REFNIC_ADMIN_QUEUE_CREATE };
	struct refnic_admin_queue_create *qc = &cmd.qcreate;
	struct rte_ether_addr any = { .addr_bytes = { 0x02, 0, 0, 0, 0, 1 } };
	struct rte_mbuf *m;
	uint64_t deadline;
	uint16_t port, i;
	int ret = -1;

	if (bench_create(caps_off) != 0)
		return -1;
	for (i = 0; i < BENCH_RX_RING; i++) {
		bench.rx_ring[i].addr = bench_iova(OFF_RXB + i * BENCH_BUF);
		bench.rx_ring[i].buf_len = BENCH_BUF;
	}
	qc->type = REFNIC_QTYPE_RX;
	qc->ring_size = BENCH_RX_RING;
	qc->ring_iova = bench_iova(OFF_RXR);
	qc->cq_iova = bench_iova(OFF_RXC);
	qc->rx_buf_size = BENCH_BUF;
	if (bench_cmd(&cmd, NULL) != REFNIC_ADMIN_STS_OK ||
	    bench_cmd_value(REFNIC_ADMIN_SET_RX_MODE, REFNIC_RX_MODE_PROMISC, NULL) !=
	    REFNIC_ADMIN_STS_OK) {
		printf("    bench: RX queue not created\n");
		goto out;
	}
	bench_write(REFNIC_REG_RXQ(0) + REFNIC_Q_TAIL, BENCH_RX_RING - 1);
	if (test_port_create(CA, "cable=" BENCH_CABLE ",profile=ideal", &port) != 0)
		goto out;
	if (test_port_start(port, 0, 0) != 0 || !test_link_wait(port, RTE_ETH_LINK_UP)) {
		printf("    port " CA ": not started, or no link\n");
		goto out_port;
	}
	m = test_make_pkt(&any, len, 7, 1);
	if (m == NULL || test_tx_all(port, &m, 1) != 1)
		goto out_port;
	deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	do {
		bench_stats(st);
		if (st->q[0].rx_packets + st->rx_oversize + st->q[0].rx_no_buffer > 0)
			break;
		rte_delay_us_sleep(100);
	} while (rte_get_timer_cycles() < deadline);
	rte_delay_us_sleep(10 * 1000);	/* anything late is counted too */
	bench_stats(st);
	*cpls = 0;
	for (i = 0; i < BENCH_RX_RING; i++)
		if (__atomic_load_n(&bench.rx_cq[i].phase, __ATOMIC_ACQUIRE) & REFNIC_PHASE_BIT)
			(*cpls)++;
	ret = 0;
out_port:
	test_port_destroy(CA);
out:
	bench_destroy();
	return ret;
}

static int
test_scatter(void)
{
	struct refnic_hw_stats st;
	unsigned int cpls;

	TEST_ASSERT_SUCCESS(scatter_case(0, 3 * BENCH_BUF / 2, &cpls, &st), "");
	TEST_ASSERT(st.q[0].rx_packets == 1 && cpls == 2 && st.rx_oversize == 0,
		    "with scatter: %" PRIu64 " frames in %u buffers (expected 1 in 2), %" PRIu64
		    " oversize", st.q[0].rx_packets, cpls, st.rx_oversize);
	TEST_ASSERT_SUCCESS(scatter_case(REFNIC_CAP_SCATTER, 3 * BENCH_BUF / 2, &cpls, &st),
			    "");
	TEST_ASSERT(st.q[0].rx_packets == 0 && cpls == 0 && st.rx_oversize == 1 &&
		    st.q[0].rx_no_buffer == 0,
		    "without scatter: %" PRIu64 " frames in %u buffers (expected none), %" PRIu64
		    " oversize (expected 1), %" PRIu64 " without a buffer", st.q[0].rx_packets,
		    cpls, st.rx_oversize, st.q[0].rx_no_buffer);
	/* A frame that fits one buffer is taken. */
	TEST_ASSERT_SUCCESS(scatter_case(REFNIC_CAP_SCATTER, BENCH_BUF, &cpls, &st), "");
	TEST_ASSERT(st.q[0].rx_packets == 1 && cpls == 1 && st.rx_oversize == 0,
		    "without scatter, one buffer's frame: %" PRIu64 " frames in %u buffers",
		    st.q[0].rx_packets, cpls);
	return TEST_SUCCESS;
}

/* ---- The devargs a user types -------------------------------------------- */

/*
 * caps_off= takes every capability's name; a driver on a device without
 * those it need not have (events, fault codes, packet types, jumbo frames,
 * counters by DMA) still starts and carries a frame, offers no MTU beyond
 * 1500, and counts the frame itself: the port's stats say one each way,
 * as the device's own counters do.
 */
static int
test_caps_off_names(void)
{
	struct rte_eth_dev_info info;
	struct refnic_hw_stats hw;
	struct rte_ether_addr mac;
	struct rte_eth_stats st;
	struct rte_mbuf *m;
	uint64_t cmds;
	uint16_t port;
	int ret = TEST_FAILED;

	TEST_ASSERT_SUCCESS(test_port_create(CA, "cable=loopback,profile=ideal,caps_off="
					     "rx_ptype+jumbo+aeq+fault_report+stats_dma", &port), "");
	if (rte_eth_dev_info_get(port, &info) != 0 || info.max_mtu != RTE_ETHER_MTU) {
		printf("    max_mtu %u, expected 1500\n", info.max_mtu);
		goto out;
	}
	if (test_port_start(port, 0, 0) != 0 || rte_eth_dev_set_mtu(port, 1501) == 0) {
		printf("    not started, or an MTU of 1501 taken\n");
		goto out;
	}
	rte_eth_macaddr_get(port, &mac);
	m = test_make_pkt(&mac, 100, 1, 1);
	if (m == NULL || test_tx_all(port, &m, 1) != 1 || test_rx_wait(port, &m, 1) != 1) {
		printf("    no frame through the loopback\n");
		goto out;
	}
	rte_pktmbuf_free(m);
	test_hw_stats(CA, &hw);
	cmds = test_xstat(port, "admin_commands");
	if (rte_eth_stats_get(port, &st) != 0 || st.ipackets != 1 || st.opackets != 1 ||
	    hw.q[0].rx_packets != 1 || hw.q[0].tx_packets != 1) {
		printf("    port counts %" PRIu64 " in, %" PRIu64 " out; device %" PRIu64
		       " in, %" PRIu64 " out (expected 1 each)\n", st.ipackets, st.opackets,
		       hw.q[0].rx_packets, hw.q[0].tx_packets);
		goto out;
	}
	/* Nor does the PMD ask the device for what it cannot give. */
	if (test_xstat(port, "admin_commands") != cmds) {
		printf("    admin commands %" PRIu64 " then %" PRIu64 ": STATS_GET sent\n", cmds,
		       test_xstat(port, "admin_commands"));
		goto out;
	}
	ret = TEST_SUCCESS;
out:
	test_port_destroy(CA);
	return ret;
}

const struct unit_test_suite refnic_caps_suite = {
	.name = "caps",
	.cases = {
		TEST_CASE(test_tx_csum),
		TEST_CASE(test_vlan_insert),
		TEST_CASE(test_vlan_strip),
		TEST_CASE(test_rx_csum),
		TEST_CASE(test_rx_ptype),
		TEST_CASE(test_vlan_filter),
		TEST_CASE(test_scatter),
		TEST_CASE(test_jumbo),
		TEST_CASE(test_aeq),
		TEST_CASE(test_fault_report),
		TEST_CASE(test_stats_dma),
		TEST_CASE(test_admin_due),
		TEST_CASE(test_caps_off_names),
		TEST_CASES_END()
	},
};
