/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/* Probe, devargs and the limits the port reports. */

#include <rte_alarm.h>
#include <rte_bus_vdev.h>

#include "refnic_devargs.h"
#include "test_common.h"

static int
test_probe_defaults(void)
{
	struct rte_eth_dev_info info;
	char fw[64];
	uint16_t port;
	int ret;

	TEST_ASSERT_SUCCESS(test_port_create("net_refnic_p0", "", &port), "probe failed");
	ret = rte_eth_dev_info_get(port, &info);
	if (ret == 0)
		ret = rte_eth_dev_fw_version_get(port, fw, sizeof(fw));
	test_port_destroy("net_refnic_p0");
	TEST_ASSERT_SUCCESS(ret, "dev_info/fw_version failed");
	TEST_ASSERT(strcmp(info.driver_name, "net_refnic") == 0, "driver %s", info.driver_name);
	TEST_ASSERT_EQUAL(info.max_rx_queues, 8, "default queue pairs");
	TEST_ASSERT_EQUAL(info.max_tx_queues, 8, "default queue pairs");
	TEST_ASSERT_EQUAL(info.rx_desc_lim.nb_min, REFNIC_MIN_RING_SIZE, "");
	TEST_ASSERT_EQUAL(info.rx_desc_lim.nb_max, REFNIC_MAX_RING_SIZE, "");
	TEST_ASSERT_EQUAL(info.max_mtu, REFNIC_MAX_MTU, "");
	/* A TSO packet may take more descriptors than one frame. */
	TEST_ASSERT_EQUAL(info.tx_desc_lim.nb_mtu_seg_max, REFNIC_MAX_TX_SEGS, "");
	TEST_ASSERT_EQUAL(info.tx_desc_lim.nb_seg_max, REFNIC_MAX_TSO_SEGS, "");
	TEST_ASSERT(strncmp(fw, "refnic-emu", 10) == 0, "fw version '%s'", fw);
	TEST_ASSERT(refnic_emu_lookup("net_refnic_p0") == NULL, "device outlived its port");
	return TEST_SUCCESS;
}

static int
test_probe_devargs(void)
{
	struct rte_eth_dev_info info;
	uint16_t port;
	int ret;

	TEST_ASSERT_SUCCESS(test_port_create("net_refnic_p1",
					     "queues=3,profile=ideal,admin_poll=exp:10:500,"
					     "cable=lab", &port), "probe with devargs failed");
	ret = rte_eth_dev_info_get(port, &info);
	test_port_destroy("net_refnic_p1");
	TEST_ASSERT_SUCCESS(ret, "dev_info failed");
	TEST_ASSERT_EQUAL(info.max_rx_queues, 3, "queues=3 not honoured");
	return TEST_SUCCESS;
}

/* Each bad devarg fails the probe, leaves no port and no device behind. */
static int
test_probe_bad_devargs(void)
{
	static const char * const bad[] = {
		"queues=0", "queues=65", "queues=abc", "queues=-1", "queues=4x",
		"bogus=1", "profile=warp", "cable=", "cable=shm:", "cable=a/b",
		"admin_poll=fixed:0", "admin_poll=fixed", "admin_poll=exp:10",
		"admin_poll=exp:500:10", "admin_poll=spin", "admin_poll=fixed:10:20",
		"admin_latency_pct=100001", "admin_latency_pct=x", "fault_reset_fail=1001",
		"fault_admin_timeout=bogus", "fault_admin_timeout=every:0",
		"fault_admin_timeout=queue_create:x", "fault_admin_timeout=",
		"profile=baremetal,exec=inline", "exec=fast", "exec=", "exec=INLINE",
		"itr=fast", "itr=", "rx_itr_us=10001", "tx_itr_us=-1", "rx_itr_us=5us",
		"itr=off,rx_itr_us=5", "itr=adaptive,tx_itr_us=5",
		"fault_corrupt=rx", "fault_corrupt=rx:0", "fault_corrupt=disk:5",
		"fault_corrupt=any:x", "fault_corrupt=:5", "fault_fatal=after_ms:0",
		"fault_fatal=5", "fault_fatal=after_ms:", "fault_fatal=after_packets:5",
		"queues=2,queues=4", "profile=vm,profile=vm",
		"fault_doorbell_drop=1", "fault_doorbell_drop=-1", "fault_doorbell_drop=x",
		"fault_doorbell_drop=1000000001", "fault_doorbell_drop=", "errata=bogus",
		"errata=", "errata=MISSED_DOORBELL", "doorbell_check=maybe", "doorbell_check=",
		"doorbell_check=ON", "doorbell_check_us=99", "doorbell_check_us=1000001",
		"doorbell_check_us=1ms", "doorbell_check_us=",
		"doorbell_check=off,doorbell_check_us=500",
		"wc=", "wc=maybe", "wc=ON", "wc=1", "bar_wc=", "bar_wc=yes",
		"fault_wc_garble=2", "fault_wc_garble=on",
		"mac=", "mac=01:00:00:00:00:01", "mac=ff:ff:ff:ff:ff:ff",
		"mac=00:00:00:00:00:00", "mac=02:00:00:00:00", "mac=02:00:00:00:00:0g",
		"mac=02:00:00:00:00:01:", "mac=02-00-00-00-00-01", "mac=0200.0000.0001",
		"mac=2:0:0:0:0:1", "mac=02:00:00:00:00:01,mac=02:00:00:00:00:02",
		"a=1,b=2,c=3,d=4,e=5,f=6,g=7,h=8,i=9,j=10,k=11,l=12,m=13,n=14,o=15,p=16,"
		"q=17,r=18,s=19,t=20,u=21,v=22,w=23,x=24,y=25,z=26,A=27,B=28,C=29,D=30,"
		"E=31,F=32,G=33",
	};
	uint16_t before = rte_eth_dev_count_avail(), port;
	unsigned int i;

	for (i = 0; i < RTE_DIM(bad); i++) {
		TEST_ASSERT(test_port_create("net_refnic_bad", bad[i], &port) != 0,
			    "'%s' was accepted", bad[i]);
		TEST_ASSERT(refnic_emu_lookup("net_refnic_bad") == NULL,
			    "'%s' left a device behind", bad[i]);
		rte_vdev_uninit("net_refnic_bad");
	}
	TEST_ASSERT_EQUAL(rte_eth_dev_count_avail(), before, "ports leaked");
	return TEST_SUCCESS;
}

/*
 * mac= is the port's permanent address: what ethdev reports, what the
 * device's filter takes with promiscuous mode off (and not the address the
 * name gives), and what the port comes back with after a reset.
 */
static int
test_probe_mac(void)
{
	static const struct rte_ether_addr want = {
		.addr_bytes = { 0x02, 0xab, 0xcd, 0xef, 0x01, 0x23 } };
	struct rte_ether_addr named, got;
	uint16_t a, b;
	int ret;

	TEST_ASSERT_SUCCESS(test_port_create("net_refnic_m1", "cable=macs", &b), "");
	rte_eth_macaddr_get(b, &named);
	test_port_destroy("net_refnic_m1");
	TEST_ASSERT_SUCCESS(test_port_create("net_refnic_m0", "cable=macs", &a), "");
	TEST_ASSERT_SUCCESS(test_port_create("net_refnic_m1",
					     "cable=macs,mac=02:AB:cd:ef:01:23", &b), "");
	rte_eth_macaddr_get(b, &got);
	ret = test_port_start(a, 0, 0) | test_port_start(b, 0, 0) |
	      rte_eth_promiscuous_disable(b);
	if (ret == 0 && (!rte_is_same_ether_addr(&got, &want) ||
			 !test_frame_passes(a, b, &want, 0) || test_frame_passes(a, b, &named, 0)))
		ret = -EINVAL;
	if (ret == 0)
		ret = rte_eth_dev_reset(b) | test_port_start(b, 0, 0);
	rte_eth_macaddr_get(b, &got);
	test_port_destroy("net_refnic_m1");
	test_port_destroy("net_refnic_m0");
	TEST_ASSERT_SUCCESS(ret, "mac= is not the address the port answers to");
	TEST_ASSERT(rte_is_same_ether_addr(&got, &want), "after a reset: another address");
	return TEST_SUCCESS;
}

/* The longest run of c in s. */
static size_t
longest_run(const char *s, char c)
{
	size_t run = 0, best = 0;

	for (; *s != '\0'; s++) {
		run = *s == c ? run + 1 : 0;
		best = RTE_MAX(best, run);
	}
	return best;
}

#define LONG_VALUE_LEN	5000
#define QUOTE_MAX	32	/* what the guide promises an error line quotes */

static char long_log[64 * 1024];

/* Probe with args; the error lines it logged, in long_log. */
static int
probe_logged(const char *args)
{
	FILE *f = test_log_capture_start(long_log, sizeof(long_log));
	uint16_t port;
	int ret;

	if (f == NULL)
		return -ENOMEM;
	ret = test_port_create("net_refnic_long", args, &port);
	test_log_capture_stop(f);
	rte_vdev_uninit("net_refnic_long");
	return ret;
}

/*
 * A 5,000-character value, for each key of the driver and of the device
 * (and a valid prefix before it where the key has one), fails the probe
 * with one error line that quotes 32 characters of it and "...", not the
 * whole value; the same for a long unknown key.
 */
static int
test_probe_long_devargs(void)
{
	static const char * const prefixes[] = { "", "shm:", "tap:", "fixed:", "exp:1:",
						 "after_ms:", "rx:", "every:" };
	const char * const *lists[] = { refnic_devargs_keys, refnic_emu_devargs_keys };
	static char args[LONG_VALUE_LEN + 64], want[128];
	unsigned int l, p, keys = 0;
	const char * const *key;

	for (l = 0; l < RTE_DIM(lists); l++) {
		for (key = lists[l]; *key != NULL; key++, keys++) {
			for (p = 0; p < RTE_DIM(prefixes); p++) {
				int n = snprintf(args, sizeof(args), "%s=%s", *key, prefixes[p]);

				memset(args + n, 'x', LONG_VALUE_LEN);
				args[n + LONG_VALUE_LEN] = '\0';
				TEST_ASSERT(probe_logged(args) != 0, "%s=%s<5000> accepted",
					    *key, prefixes[p]);
				TEST_ASSERT_EQUAL(test_log_count(long_log, "invalid ", NULL), 1,
						  "%s=%s<5000>: not one error line: %.200s", *key,
						  prefixes[p], long_log);
				TEST_ASSERT_EQUAL(longest_run(long_log, 'x'),
						  QUOTE_MAX - strlen(prefixes[p]),
						  "%s=%s<5000>: the line quotes %zu x's", *key,
						  prefixes[p], longest_run(long_log, 'x'));
				snprintf(want, sizeof(want), "invalid %s=%s%.*s...:", *key,
					 prefixes[p], (int)(QUOTE_MAX - strlen(prefixes[p])),
					 args + n);
				TEST_ASSERT_EQUAL(test_log_count(long_log, want, NULL), 1,
						  "no '%s' in: %.200s", want, long_log);
			}
		}
	}
	TEST_ASSERT(keys >= 23, "only %u keys", keys);

	memset(args, 'k', LONG_VALUE_LEN);
	strcpy(args + LONG_VALUE_LEN, "=1");
	TEST_ASSERT(probe_logged(args) != 0, "a 5000-character key was accepted");
	TEST_ASSERT_EQUAL(longest_run(long_log, 'k'), QUOTE_MAX,
			  "the unknown key's line quotes %zu k's", longest_run(long_log, 'k'));
	TEST_ASSERT_EQUAL(test_log_count(long_log, "unknown devarg '", NULL), 1, "%.200s",
			  long_log);
	return TEST_SUCCESS;
}

/* A third port on a two-ended cable is refused. */
static int
test_probe_cable_ends(void)
{
	uint16_t a, b, c;
	int ret;

	TEST_ASSERT_SUCCESS(test_port_create("net_refnic_c0", "cable=ends", &a), "");
	TEST_ASSERT_SUCCESS(test_port_create("net_refnic_c1", "cable=ends", &b), "");
	ret = test_port_create("net_refnic_c2", "cable=ends", &c);
	rte_vdev_uninit("net_refnic_c2");
	test_port_destroy("net_refnic_c0");
	test_port_destroy("net_refnic_c1");
	TEST_ASSERT(ret != 0, "a cable took three ends");
	return TEST_SUCCESS;
}

/* Ring sizes outside the device's limits, or not a power of two, fail cleanly. */
/* Holds EAL's alarm thread for arg ms: what it runs next runs after. */
static void
alarm_thread_hold(void *arg)
{
	rte_delay_ms((uintptr_t)arg);
}

/*
 * A device that never answers IDENTIFY fails the probe; what the driver
 * scheduled on the way (the reset event of a failed port) must not fire
 * on the port afterwards, when it is gone: EAL's alarm thread is held
 * past the probe so that it would. The process lives, nothing is left.
 */
static int
test_probe_failure_leaves_no_alarm(void)
{
	uint16_t port;

	TEST_ASSERT_SUCCESS(rte_eal_alarm_set(1, alarm_thread_hold, (void *)(uintptr_t)3000),
			    "");
	TEST_ASSERT(test_port_create("net_refnic_p6", "fault_admin_timeout=identify", &port) != 0,
		    "a device that never answered IDENTIFY was probed");
	rte_eal_alarm_cancel(alarm_thread_hold, (void *)(uintptr_t)3000);	/* waits for it */
	rte_delay_ms(100);	/* whatever was queued behind it */
	TEST_ASSERT(refnic_emu_lookup("net_refnic_p6") == NULL, "device outlived its port");
	TEST_ASSERT(rte_eth_dev_get_port_by_name("net_refnic_p6", &port) != 0, "port left");
	return TEST_SUCCESS;
}

static int
test_queue_setup_limits(void)
{
	/* 192 and 320 pass ethdev's alignment check; the driver wants powers of 2. */
	static const uint16_t bad_sizes[] = { 192, 320, 100, 32, 8192, 65535 };
	struct rte_eth_conf conf = { 0 };
	uint16_t port;
	unsigned int i;
	int ret = 0;

	TEST_ASSERT_SUCCESS(test_port_create("net_refnic_q0", "", &port), "");
	ret = rte_eth_dev_configure(port, 1, 1, &conf);
	for (i = 0; ret == 0 && i < RTE_DIM(bad_sizes); i++) {
		if (rte_eth_rx_queue_setup(port, 0, bad_sizes[i], SOCKET_ID_ANY, NULL,
					   test_pool) == 0 ||
		    rte_eth_tx_queue_setup(port, 0, bad_sizes[i], SOCKET_ID_ANY, NULL) == 0) {
			printf("    %u descriptors accepted\n", bad_sizes[i]);
			ret = -1;
		}
	}
	if (ret == 0)
		ret = rte_eth_rx_queue_setup(port, 0, REFNIC_MIN_RING_SIZE, SOCKET_ID_ANY,
					     NULL, test_pool) |
		      rte_eth_tx_queue_setup(port, 0, REFNIC_MAX_RING_SIZE, SOCKET_ID_ANY, NULL);
	if (ret == 0)
		ret = rte_eth_dev_configure(port, 9, 9, &conf) == 0 ? -1 : 0;
	test_port_destroy("net_refnic_q0");
	TEST_ASSERT_SUCCESS(ret, "queue limits not enforced");
	return TEST_SUCCESS;
}

const struct unit_test_suite refnic_probe_suite = {
	.name = "probe",
	.cases = {
		TEST_CASE(test_probe_defaults),
		TEST_CASE(test_probe_devargs),
		TEST_CASE(test_probe_bad_devargs),
		TEST_CASE(test_probe_mac),
		TEST_CASE(test_probe_long_devargs),
		TEST_CASE(test_probe_cable_ends),
		TEST_CASE(test_probe_failure_leaves_no_alarm),
		TEST_CASE(test_queue_setup_limits),
		TEST_CASES_END()
	},
};
