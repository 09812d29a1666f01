/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * refnic unit tests, dpdk-test style: the PMD on embedded devices, driven
 * through the ethdev API, with the device's own counters as the witness.
 *
 *   refnic-unit-test [EAL args] [-- suite...]
 *
 * Without EAL args it runs in memory without hugepages.
 */

#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "test_common.h"

extern const struct unit_test_suite refnic_probe_suite;
extern const struct unit_test_suite refnic_datapath_suite;
extern const struct unit_test_suite refnic_lifecycle_suite;
extern const struct unit_test_suite refnic_control_suite;
extern const struct unit_test_suite refnic_recovery_suite;
extern const struct unit_test_suite refnic_rss_filters_suite;
extern const struct unit_test_suite refnic_queues_suite;
extern const struct unit_test_suite refnic_offload_suite;
extern const struct unit_test_suite refnic_cables_suite;
extern const struct unit_test_suite refnic_engines_suite;
extern const struct unit_test_suite refnic_exec_suite;
extern const struct unit_test_suite refnic_intr_suite;
extern const struct unit_test_suite refnic_hostile_suite;
extern const struct unit_test_suite refnic_doorbell_suite;
extern const struct unit_test_suite refnic_wc_suite;
extern const struct unit_test_suite refnic_config_suite;
extern const struct unit_test_suite refnic_stress_suite;
extern const struct unit_test_suite refnic_soak_suite;
extern const struct unit_test_suite refnic_faultseq_suite;
extern const struct unit_test_suite refnic_vector_suite;
extern const struct unit_test_suite refnic_device_simd_suite;
extern const struct unit_test_suite refnic_flow_suite;
extern const struct unit_test_suite refnic_tso_suite;
extern const struct unit_test_suite refnic_timesync_suite;
extern const struct unit_test_suite refnic_caps_suite;
extern const struct unit_test_suite refnic_rx_format_suite;
extern const struct unit_test_suite refnic_witness_suite;
extern const struct unit_test_suite refnic_witness_faults_suite;
extern const struct unit_test_suite refnic_batching_suite;

static const struct unit_test_suite *suites[] = {
	&refnic_probe_suite,
	&refnic_datapath_suite,
	&refnic_lifecycle_suite,
	&refnic_control_suite,
	&refnic_recovery_suite,
	&refnic_rss_filters_suite,
	&refnic_queues_suite,
	&refnic_offload_suite,
	&refnic_cables_suite,
	&refnic_engines_suite,
	&refnic_exec_suite,
	&refnic_intr_suite,
	&refnic_hostile_suite,
	&refnic_doorbell_suite,
	&refnic_wc_suite,
	&refnic_config_suite,
	&refnic_stress_suite,
	&refnic_soak_suite,
	&refnic_faultseq_suite,
	&refnic_vector_suite,
	&refnic_device_simd_suite,
	&refnic_flow_suite,
	&refnic_tso_suite,
	&refnic_timesync_suite,
	&refnic_caps_suite,
	&refnic_rx_format_suite,
	&refnic_witness_suite,
	&refnic_witness_faults_suite,
	&refnic_batching_suite,
};

static bool
suite_selected(const char *name, int argc, char **argv)
{
	int i;

	if (argc == 0)
		return true;
	for (i = 0; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return true;
	return false;
}

int
main(int argc, char **argv)
{
	char *default_args[] = { argv[0], "--no-huge", "-m", "512", "--no-pci",
				 "--no-shconf", "--no-telemetry", "-l", "0",
				 "--log-level=pmd.net.refnic.*:error", NULL };
	struct test_totals t = { 0 };
	unsigned int i;
	int ret;

	if (argc > 1 && strcmp(argv[1], "--") != 0) {
		/* EAL args given: EAL eats them, suite names follow "--". */
		ret = rte_eal_init(argc, argv);
		argc -= ret;
		argv += ret;
	} else {
		ret = rte_eal_init(RTE_DIM(default_args) - 1, default_args);
	}
	if (ret < 0) {
		fprintf(stderr, "cannot initialise EAL\n");
		return 1;
	}
	/* argv[0] is the program name or "--"; suite names follow it. */
	if (argc > 1 && strcmp(argv[1], "--") == 0) {
		argc--;
		argv++;
	}
	argc--;
	argv++;

	test_pool = rte_pktmbuf_pool_create("refnic_test", 8191, 256, 0,
					    RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	if (test_pool == NULL) {
		fprintf(stderr, "cannot create the mbuf pool\n");
		return 1;
	}
	for (i = 0; i < RTE_DIM(suites); i++)
		if (suite_selected(suites[i]->name, argc, argv))
			unit_test_suite_run(suites[i], &t);

	rte_mempool_free(test_pool);
	rte_eal_cleanup();
	printf("%u passed, %u failed", t.passed, t.failed);
	if (t.skipped != 0)
		printf(", %u skipped", t.skipped);
	printf("\n");
	return t.failed == 0 ? 0 : 1;
}
