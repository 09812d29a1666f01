/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Sequences of faults the soak found, made deterministic.
 */

#include <rte_cycles.h>

#include "test_common.h"

/*
 * What the soak found, made deterministic: a recovery re-reads the
 * device's errata. A port recovered while fault_doorbell_drop was on runs
 * the missed-doorbell check; recovered again once it is off, the check is
 * no longer "enabled", yet its alarm still runs. The stop and close must
 * still end it: otherwise it fires on the released port (UBSan saw a NULL
 * adapter in db_check_alarm; without sanitizers, a crash after close).
 */
static int
recover_and_wait(struct refnic_emu *emu, uint16_t port)
{
	uint64_t deadline = rte_get_timer_cycles() + TEST_WAIT_S * rte_get_timer_hz();
	uint64_t before = test_xstat(port, "recoveries");

	refnic_emu_inject_fatal(emu);
	while (test_xstat(port, "recoveries") == before && rte_get_timer_cycles() < deadline)
		rte_delay_us_sleep(1000);
	return test_xstat(port, "recoveries") != before ? 0 : -1;
}

static int
test_doorbell_check_ends_after_erratum_left(void)
{
	struct refnic_emu_faults drop = { .doorbell_drop = 1000 }, none = { 0 };
	const struct test_pair_conf pair = {
		.name_a = "net_refnic_ef0", .name_b = "net_refnic_ef1",
		.args_a = "profile=ideal,doorbell_check_us=200",
	};
	struct refnic_emu *emu;
	uint16_t a, b;

	TEST_ASSERT_SUCCESS(test_pair_setup(&pair, &a, &b, NULL), "");
	emu = refnic_emu_lookup("net_refnic_ef0");
	refnic_emu_set_faults(emu, &drop);
	TEST_ASSERT_SUCCESS(recover_and_wait(emu, a), "recovery with the erratum");
	refnic_emu_set_faults(emu, &none);
	TEST_ASSERT_SUCCESS(recover_and_wait(emu, a), "recovery without it");
	test_pair_teardown(&pair);
	rte_delay_us_sleep(50 * 1000);	/* an alarm left behind fires meanwhile */
	return TEST_SUCCESS;
}

const struct unit_test_suite refnic_faultseq_suite = {
	.name = "faultseq",
	.cases = {
		TEST_CASE(test_doorbell_check_ends_after_erratum_left),
		TEST_CASES_END()
	},
};
