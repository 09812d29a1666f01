/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * libFuzzer: any string as the devargs of a net_refnic vdev, through the
 * parsing probe does (split between driver and device, then each side's
 * handlers). Nothing may crash, read out of bounds or leak; a string that
 * parses must leave settings within their documented ranges.
 */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>

#include "refnic_vdev.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc __rte_unused, char ***argv __rte_unused)
{
	/* A million refusals, each with its line, would be the whole output. */
	rte_log_set_global_level(RTE_LOG_EMERG);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct refnic_emu_params params;
	struct refnic_devargs drv;
	char *args = malloc(size + 1);

	if (args == NULL)
		return 0;
	memcpy(args, data, size);
	args[size] = '\0';
	memset(&drv, 0, sizeof(drv));
	if (refnic_vdev_parse_args("net_refnic_fuzz", args, &drv, &params) == 0 &&
	    (params.max_queues == 0 || params.max_queues > REFNIC_MAX_QUEUES ||
	     params.engines == 0 || params.engines > REFNIC_EMU_MAX_ENGINES ||
	     drv.itr.rx_us > REFNIC_ITR_MAX_US || drv.itr.tx_us > REFNIC_ITR_MAX_US ||
	     drv.wc > REFNIC_WC_OFF || params.bar_wc > REFNIC_BAR_WC_OFF ||
	     params.max_tx_segs > REFNIC_MAX_TX_SEGS ||
	     (params.faults.corrupt_what & ~REFNIC_EMU_CORRUPT_ANY) != 0))
		abort();	/* accepted, yet out of range */
	free(args);
	return 0;
}
