/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#include <stdio.h>

#include <rte_eal.h>
#include <rte_ethdev.h>

int
main(int argc, char **argv)
{
	int ret = rte_eal_init(argc, argv);

	if (ret < 0)
		return 1;
	printf("%u ports\n", rte_eth_dev_count_avail());
	rte_eal_cleanup();
	return 0;
}
