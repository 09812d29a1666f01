/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Write-combining TX push (wc=): which TX path a port picks on which
 * platform and why (one log line), that on/off are obeyed, that a garbled
 * self-test falls back, that pushed frames arrive byte-identical (inline
 * bytes, multi-segment, offloads) and that xstats count each path. Counts
 * only: what push saves in time is devtools/bench.sh wc's business.
 */

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_ip.h>
#include <rte_udp.h>

#include "test_common.h"

#define WC_P	"net_refnic_wc0"
#define WC_Q	"net_refnic_wc1"

static char wc_log[8192];

/* Probe WC_P with args, its init log captured into wc_log; start it. */
static int
wc_port(const char *args, uint16_t *port)
{
	FILE *f = test_log_capture_start(wc_log, sizeof(wc_log));
	int ret;

	if (f == NULL)
		return -1;
	rte_log_set_level_pattern("pmd.net.refnic.init", RTE_LOG_NOTICE);
	ret = test_port_create(WC_P, args, port);
	rte_log_set_level_pattern("pmd.net.refnic.init", RTE_LOG_ERR);
	test_log_capture_stop(f);
	if (ret == 0)
		ret = test_port_start(*port, 0, 0);
	if (ret != 0)
		test_port_destroy(WC_P);
	return ret;
}

/* The log's lines that say which TX path runs; the last one into *line. */
static unsigned int
wc_path_lines(const char **line)
{
	return test_log_count(wc_log, "TX path", line);
}

static bool
tx_mode_is(uint16_t port, const char *what)
{
	struct rte_eth_burst_mode mode;

	return rte_eth_tx_burst_mode_get(port, 0, &mode) == 0 && strstr(mode.info, what) != NULL;
}

/* Send bursts of n frames of len bytes in segs segments, from the port to
 * itself (loopback cable); all must come back byte-identical. */
static bool
wc_send(uint16_t port, unsigned int bursts, uint16_t n, uint32_t len, uint16_t segs)
{
	struct rte_mbuf *tx[TEST_BURST], *rx[TEST_BURST];
	struct rte_ether_addr mac;
	unsigned int b;
	uint16_t i, got;
	bool ok = true;

	rte_eth_macaddr_get(port, &mac);
	for (b = 0; b < bursts && ok; b++) {
		for (i = 0; i < n; i++)
			tx[i] = test_make_pkt(&mac, len, b * n + i, segs);
		ok = test_tx_all(port, tx, n) == n;
		got = test_rx_wait(port, rx, n);
		for (i = 0; i < got; i++) {
			if (!test_pkt_matches(rx[i], &mac, len, b * n + i)) {
				printf("    frame %u of %u bytes in %u segments differs\n",
				       b * n + i, len, segs);
				ok = false;
			}
		}
		rte_pktmbuf_free_bulk(rx, got);
		ok &= got == n;
	}
	return ok;
}

/* What wc=auto picks, and says once: push on baremetal and ideal (WC), fetch on vm. */
static int
test_wc_auto_picks_by_platform(void)
{
	static const struct { const char *args; bool push; const char *why; } cases[] = {
		{ "profile=baremetal", true, "self-test passed" },
		{ "profile=ideal", true, "self-test passed" },
		{ "profile=vm", false, "uncached" },
		{ "profile=baremetal,bar_wc=off", false, "uncached" },
		{ "profile=vm,bar_wc=on", true, "self-test passed" },
	};
	const char *line = NULL;
	unsigned int i;
	uint16_t port;

	for (i = 0; i < RTE_DIM(cases); i++) {
		TEST_ASSERT_SUCCESS(wc_port(cases[i].args, &port), "%s", cases[i].args);
		TEST_ASSERT_EQUAL(wc_path_lines(&line), 1, "%s: log:\n%s", cases[i].args, wc_log);
		TEST_ASSERT(strstr(line, cases[i].push ? "TX path push (wc=auto" :
				   "TX path doorbell+fetch (wc=auto") != NULL &&
			    strstr(line, cases[i].why) != NULL, "%s: %s", cases[i].args, line);
		TEST_ASSERT(tx_mode_is(port, cases[i].push ? "WC push" : "doorbell+fetch"),
			    "%s: burst mode", cases[i].args);
		test_port_destroy(WC_P);
	}
	return TEST_SUCCESS;
}

/* wc=on pushes where auto would not (with a warning), wc=off never pushes. */
static int
test_wc_on_off_obeyed(void)
{
	const char *line = NULL;
	uint16_t port;

	TEST_ASSERT_SUCCESS(wc_port("profile=vm,wc=on", &port), "");
	TEST_ASSERT_EQUAL(wc_path_lines(&line), 1, "log:\n%s", wc_log);
	TEST_ASSERT(strstr(line, "forced by wc=on") != NULL, "%s", line);
	TEST_ASSERT(wc_send(port, 4, 1, 128, 1), "frames");
	TEST_ASSERT_EQUAL(test_xstat(port, "tx_push_packets"), 4, "");
	TEST_ASSERT_EQUAL(test_xstat(port, "tx_fetch_packets"), 0, "");
	test_port_destroy(WC_P);

	TEST_ASSERT_SUCCESS(wc_port("profile=baremetal,wc=off", &port), "");
	TEST_ASSERT_EQUAL(wc_path_lines(&line), 1, "log:\n%s", wc_log);
	TEST_ASSERT(strstr(line, "TX path doorbell+fetch (wc=off)") != NULL, "%s", line);
	TEST_ASSERT(wc_send(port, 4, 1, 128, 1), "frames");
	TEST_ASSERT_EQUAL(test_xstat(port, "tx_push_packets"), 0, "");
	TEST_ASSERT_EQUAL(test_xstat(port, "tx_fetch_packets"), 4, "");
	TEST_ASSERT_EQUAL(test_xstat(port, "tx_doorbell_writes"), 4, "");
	test_port_destroy(WC_P);
	return TEST_SUCCESS;
}

/* Garbled push stores fail the self-test: fetch, said in one line. */
static int
test_wc_garbled_selftest_falls_back(void)
{
	const char *line = NULL;
	uint16_t port;

	TEST_ASSERT_SUCCESS(wc_port("profile=baremetal,fault_wc_garble=1", &port), "");
	TEST_ASSERT_EQUAL(wc_path_lines(&line), 1, "log:\n%s", wc_log);
	TEST_ASSERT(strstr(line, "TX path doorbell+fetch (wc=auto") != NULL &&
		    strstr(line, "self-test") != NULL && strstr(line, "garbled") != NULL,
		    "%s", line);
	TEST_ASSERT(wc_send(port, 4, 1, 64, 1), "frames");
	TEST_ASSERT_EQUAL(test_xstat(port, "tx_push_packets"), 0, "");
	TEST_ASSERT_EQUAL(test_xstat(port, "tx_fetch_packets"), 4, "");
	test_port_destroy(WC_P);
	return TEST_SUCCESS;
}

/*
 * Pushed frames, of every size around the line's inline room (232 bytes
 * after one descriptor) and in up to REFNIC_PUSH_MAX_DESC segments, arrive
 * byte-identical; the device sends them from the line, without a fetch.
 */
static int
test_wc_push_byte_identical(void)
{
	static const uint32_t sizes[] = { 60, 64, 128, 200, 216, 231, 232, 233, 256, 1000, 1514 };
	static const uint16_t segs[] = { 1, 2, 3, REFNIC_PUSH_MAX_DESC };
	struct refnic_hw_stats before, after;
	uint64_t sent = 0;
	unsigned int s, g;
	uint16_t port;

	TEST_ASSERT_SUCCESS(wc_port("profile=baremetal", &port), "");
	test_hw_stats(WC_P, &before);
	for (s = 0; s < RTE_DIM(sizes); s++)
		for (g = 0; g < RTE_DIM(segs); g++) {
			/* test_make_pkt() wants the Ethernet header in one segment. */
			if (sizes[s] / segs[g] < RTE_ETHER_HDR_LEN)
				continue;
			TEST_ASSERT(wc_send(port, 1, 1, sizes[s], segs[g]), "%u bytes, %u segments",
				    sizes[s], segs[g]);
			sent++;
		}
	test_hw_stats(WC_P, &after);
	TEST_ASSERT_EQUAL(test_xstat(port, "tx_push_packets"), sent, "");
	TEST_ASSERT_EQUAL(after.tx_push_lines - before.tx_push_lines, sent,
			  "the device sent them from the push line");
	TEST_ASSERT_EQUAL(after.q[0].tx_doorbells - before.q[0].tx_doorbells, 0,
			  "no TAIL doorbell for a pushed burst");
	/* More segments than a line holds: the ring and a doorbell. */
	TEST_ASSERT(wc_send(port, 1, 1, 1000, REFNIC_PUSH_MAX_DESC + 1), "");
	TEST_ASSERT_EQUAL(test_xstat(port, "tx_fetch_packets"), 1, "");
	test_port_destroy(WC_P);
	return TEST_SUCCESS;
}

/* An IPv4/UDP frame asking for VLAN insertion and both checksums. */
static struct rte_mbuf *
wc_offload_frame(uint16_t nb_segs)
{
	struct rte_ether_addr any = { .addr_bytes = { 0x02, 0, 0, 0, 0, 1 } };
	struct rte_mbuf *m = test_make_pkt(&any, 300, 7, nb_segs);
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *uh;

	if (m == NULL)
		return NULL;
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	uh = (struct rte_udp_hdr *)(ip + 1);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(300 - sizeof(*eh));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 1));
	ip->dst_addr = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 2));
	uh->src_port = rte_cpu_to_be_16(1000);
	uh->dst_port = rte_cpu_to_be_16(2000);
	uh->dgram_len = rte_cpu_to_be_16(300 - sizeof(*eh) - sizeof(*ip));
	uh->dgram_cksum = 0;
	m->l2_len = sizeof(*eh);
	m->l3_len = sizeof(*ip);
	m->vlan_tci = 42;
	m->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_UDP_CKSUM |
		      RTE_MBUF_F_TX_VLAN;
	return m;
}

/* One offloaded frame through a port made with args; its received bytes. */
static int
wc_offload_through(const char *args, uint16_t nb_segs, uint8_t *out, uint32_t *len,
		   uint64_t *pushed)
{
	uint64_t tx_ol = RTE_ETH_TX_OFFLOAD_VLAN_INSERT | RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
			 RTE_ETH_TX_OFFLOAD_UDP_CKSUM | RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	struct rte_mbuf *m, *rx = NULL;
	uint16_t port;
	int ret = TEST_FAILED;

	if (test_port_create(WC_Q, args, &port) != 0)
		return TEST_FAILED;
	m = wc_offload_frame(nb_segs);
	if (m != NULL && test_port_start_offloads(port, 0, tx_ol, 0) == 0 &&
	    test_tx_all(port, &m, 1) == 1 && test_rx_wait(port, &rx, 1) == 1 &&
	    rx->pkt_len <= 512) {
		*len = rx->pkt_len;
		const void *data = rte_pktmbuf_read(rx, 0, rx->pkt_len, out);

		/* rte_pktmbuf_read() copies only what spans segments. */
		if (data != out)
			memcpy(out, data, rx->pkt_len);
		*pushed = test_xstat(port, "tx_push_packets");
		ret = TEST_SUCCESS;
	}
	rte_pktmbuf_free(rx);
	test_port_destroy(WC_Q);
	return ret;
}

/* Offloads (VLAN insertion, IPv4 and UDP checksums) on a pushed frame give
 * the bytes the fetched frame gets. */
static int
test_wc_push_offloads_match_fetch(void)
{
	uint8_t a[512], b[512];
	uint32_t la = 0, lb = 0;
	uint64_t pa = 0, pb = 0;
	uint16_t segs;
	uint32_t i;

	for (segs = 1; segs <= 3; segs += 2) {
		TEST_ASSERT_SUCCESS(wc_offload_through("profile=baremetal", segs, a, &la, &pa), "");
		TEST_ASSERT_SUCCESS(wc_offload_through("profile=baremetal,wc=off", segs, b, &lb,
						       &pb), "");
		TEST_ASSERT(pa == 1 && pb == 0, "pushed %" PRIu64 " and %" PRIu64, pa, pb);
		TEST_ASSERT_EQUAL(la, lb, "%u segments", segs);
		TEST_ASSERT_EQUAL(la, 304, "VLAN tag inserted");
		for (i = 0; i < la; i++)
			TEST_ASSERT(a[i] == b[i], "%u segments: byte %u pushed 0x%02x, fetched 0x%02x",
				    segs, i, a[i], b[i]);
		TEST_ASSERT(a[14 + 4 + 10] != 0 || a[14 + 4 + 11] != 0, "IPv4 checksum inserted");
	}
	return TEST_SUCCESS;
}

/* Bursts of one are pushed, longer ones rung and fetched: xstats count both,
 * and the doorbell count stays one per burst. */
static int
test_wc_xstats_count_each_path(void)
{
	uint16_t port;

	TEST_ASSERT_SUCCESS(wc_port("profile=ideal", &port), "");
	TEST_ASSERT(wc_send(port, 5, 1, 64, 1), "");
	TEST_ASSERT(wc_send(port, 2, TEST_BURST, 64, 1), "");
	TEST_ASSERT_EQUAL(test_xstat(port, "tx_push_packets"), 5, "");
	TEST_ASSERT_EQUAL(test_xstat(port, "tx_fetch_packets"), 2 * TEST_BURST, "");
	TEST_ASSERT_EQUAL(test_xstat(port, "tx_doorbell_writes"), 2, "");
	TEST_ASSERT_SUCCESS(rte_eth_xstats_reset(port), "");
	TEST_ASSERT_EQUAL(test_xstat(port, "tx_push_packets"), 0, "after reset");
	test_port_destroy(WC_P);
	return TEST_SUCCESS;
}

/* A push line is a doorbell the device takes: with the missed-doorbell
 * check running, pushed frames arrive and no TX queue is re-rung (an idle
 * RX queue may be, once per tail, by the check's design). The check every
 * 50 ms: a queue the engine has not served for that long (a loaded
 * machine's scheduler, never the push) is all it may re-ring. */
static int
test_wc_push_is_taken_as_doorbell(void)
{
	uint16_t port;

	TEST_ASSERT_SUCCESS(wc_port("profile=baremetal,errata=missed_doorbell,"
				    "doorbell_check_us=50000", &port), "");
	TEST_ASSERT(tx_mode_is(port, "WC push"), "");
	TEST_ASSERT(wc_send(port, 64, 1, 64, 1), "frames");
	TEST_ASSERT_EQUAL(test_xstat(port, "tx_push_packets"), 64, "");
	TEST_ASSERT_EQUAL(test_xstat(port, "tx_q0_missed_doorbell_recoveries"), 0, "");
	test_port_destroy(WC_P);
	return TEST_SUCCESS;
}

static int
write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fputs(text, f);
	fclose(f);
	return 0;
}

/*
 * The platform check a PCI bus layer would make before trusting a BAR's
 * write-combining mapping (refnic_wc.c's wc_platform_check() makes the
 * emulated BAR's): the kernel's resource<N>_wc file and PAT's memtype in
 * debugfs. refnic has only the vdev bus, so no driver code would call it;
 * it stays here, tested on a fake tree, until a PCI bus layer takes it.
 */
#define WC_DIR_MAX		(PATH_MAX / 2)	/* a device's sysfs directory */

/* "resource<bar>_wc" exists: the kernel can map the BAR write-combining. */
static bool
sysfs_has_wc_resource(const char *dev_dir, unsigned int bar)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/resource%u_wc", dev_dir, bar);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	fclose(f);
	return true;
}

/* The BAR's start address, from the device's "resource" file; 0 if unknown. */
static uint64_t
sysfs_bar_start(const char *dev_dir, unsigned int bar)
{
	uint64_t start = 0, end, flags;
	char path[PATH_MAX];
	unsigned int i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/resource", dev_dir);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	for (i = 0; i <= bar; i++)
		if (fscanf(f, "%" SCNx64 " %" SCNx64 " %" SCNx64, &start, &end, &flags) != 3) {
			start = 0;
			break;
		}
	fclose(f);
	return start;
}

/*
 * PAT's view of the BAR (debugfs x86/pat_memtype_list, root only): 1 if a
 * write-combining range holds its start, 0 if the list says otherwise, -1
 * if it cannot be read.
 */
static int
pat_memtype_wc(const char *root, uint64_t bar_start)
{
	char path[WC_DIR_MAX + 64], line[256];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kernel/debug/x86/pat_memtype_list", root);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		uint64_t lo, hi;

		/* "PAT: [mem 0x00000000fd000000-0x00000000fd100000] write-combining" */
		if (sscanf(line, "PAT: [mem 0x%" SCNx64 "-0x%" SCNx64 "]", &lo, &hi) != 2)
			continue;
		if (bar_start >= lo && bar_start < hi)
			found = strstr(line, "write-combining") != NULL ? 1 : 0;
	}
	fclose(f);
	return found;
}

/*
 * Is a PCI device's BAR mapped write-combining? root is the sysfs mount
 * ("/sys", or a fake tree in tests). Returns true if so; why says what was
 * found either way.
 */
static bool
wc_sysfs_check(const char *root, const char *pci_addr, unsigned int bar,
		      char *why, size_t len)
{
	char dev_dir[WC_DIR_MAX];
	uint64_t start;
	int pat;

	if (snprintf(dev_dir, sizeof(dev_dir), "%s/bus/pci/devices/%s", root, pci_addr) >=
	    (int)sizeof(dev_dir)) {
		snprintf(why, len, "sysfs path too long");
		return false;
	}
	if (!sysfs_has_wc_resource(dev_dir, bar)) {
		snprintf(why, len, "no resource%u_wc: the kernel cannot map BAR %u write-combining",
			 bar, bar);
		return false;
	}
	start = sysfs_bar_start(dev_dir, bar);
	pat = start != 0 ? pat_memtype_wc(root, start) : -1;
	if (pat == 0) {
		snprintf(why, len, "PAT does not map BAR %u (0x%" PRIx64 ") write-combining",
			 bar, start);
		return false;
	}
	snprintf(why, len, "resource%u_wc%s", bar,
		 pat == 1 ? ", PAT write-combining" : " (PAT state not readable)");
	return true;
}

/* The PCI BAR check, on a fake sysfs/debugfs tree. */
static int
test_wc_sysfs_check(void)
{
	char root[] = "/tmp/refnic-wc-sysfs-XXXXXX", dev[128], dbg[128], cmd[320], why[160];
	int ret = TEST_FAILED;

	if (mkdtemp(root) == NULL)
		return TEST_FAILED;
	snprintf(dev, sizeof(dev), "%s/bus/pci/devices/0000:01:00.0", root);
	snprintf(dbg, sizeof(dbg), "%s/kernel/debug/x86", root);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' '%s'", dev, dbg);
	if (system(cmd) != 0 ||
	    write_file(dev, "resource", "0x00000000fd000000 0x00000000fd0fffff 0x0000000000140204\n"
		       "0x0000000000000000 0x0000000000000000 0x0000000000000000\n") != 0)
		goto out;
	if (wc_sysfs_check(root, "0000:01:00.0", 0, why, sizeof(why)) ||
	    strstr(why, "no resource0_wc") == NULL) {
		printf("    no resource0_wc: %s\n", why);
		goto out;
	}
	write_file(dev, "resource0_wc", "");
	if (!wc_sysfs_check(root, "0000:01:00.0", 0, why, sizeof(why)) ||
	    strstr(why, "not readable") == NULL) {
		printf("    resource0_wc, no debugfs: %s\n", why);
		goto out;
	}
	write_file(dbg, "pat_memtype_list", "PAT memtype list:\n"
		   "PAT: [mem 0x00000000fd000000-0x00000000fd100000] uncached-minus\n");
	if (wc_sysfs_check(root, "0000:01:00.0", 0, why, sizeof(why))) {
		printf("    PAT uncached: %s\n", why);
		goto out;
	}
	write_file(dbg, "pat_memtype_list", "PAT memtype list:\n"
		   "PAT: [mem 0x00000000fd000000-0x00000000fd100000] write-combining\n");
	if (!wc_sysfs_check(root, "0000:01:00.0", 0, why, sizeof(why)) ||
	    strstr(why, "PAT write-combining") == NULL) {
		printf("    PAT write-combining: %s\n", why);
		goto out;
	}
	ret = TEST_SUCCESS;
out:
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		printf("    could not remove %s\n", root);
	return ret;
}

/* A failed case leaves its ports: the next one starts clean. */
static void
wc_teardown(void)
{
	test_port_destroy(WC_P);
	test_port_destroy(WC_Q);
}

const struct unit_test_suite refnic_wc_suite = {
	.name = "wc",
	.cases = {
		TEST_CASE_ST(NULL, wc_teardown, test_wc_auto_picks_by_platform),
		TEST_CASE_ST(NULL, wc_teardown, test_wc_on_off_obeyed),
		TEST_CASE_ST(NULL, wc_teardown, test_wc_garbled_selftest_falls_back),
		TEST_CASE_ST(NULL, wc_teardown, test_wc_push_byte_identical),
		TEST_CASE_ST(NULL, wc_teardown, test_wc_push_offloads_match_fetch),
		TEST_CASE_ST(NULL, wc_teardown, test_wc_xstats_count_each_path),
		TEST_CASE_ST(NULL, wc_teardown, test_wc_push_is_taken_as_doorbell),
		TEST_CASE_ST(NULL, wc_teardown, test_wc_sysfs_check),
		TEST_CASES_END()
	},
};
