/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_APP_COMMON_H_
#define _REFNIC_APP_COMMON_H_

/* What refnic-fwd and refnic-pingpong share: ports, signals, numbers. */

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_mempool.h>

/* Set by SIGINT/SIGTERM; the main loops poll it. */
extern volatile sig_atomic_t app_quit;
void app_signals_install(void);

struct app_port_conf {
	uint16_t nb_rxq;
	uint16_t nb_txq;
	uint16_t nb_rxd;
	uint16_t nb_txd;
	bool promisc;
	uint16_t mtu;		/* 0: the port's default */
	bool rx_intr;		/* intr_conf.rxq: Rx queue interrupts wanted */
	bool rx_timestamp;	/* RTE_ETH_RX_OFFLOAD_TIMESTAMP, if the port offers it */
};

/*
 * Configure, set up the queues of and start a port; every RX queue takes
 * its buffers from mp. Prints what failed and returns a negative errno.
 */
int app_port_start(uint16_t port, const struct app_port_conf *conf,
		   struct rte_mempool *mp);
/* Stop and close every port that was started; safe to call twice. */
void app_ports_close(void);
/*
 * Whether the port's RX queue can wake a sleeping lcore (interrupt armed
 * and disarmed once; the port configured with rx_intr and started). If not,
 * prints "<prog>: port P (driver) has no Rx interrupts; use --wait poll".
 */
bool app_rx_intr_usable(const char *prog, uint16_t port, uint16_t queue);
/* Wait up to timeout_ms for link up; true if it came up. */
bool app_wait_link(uint16_t port, unsigned int timeout_ms);

/*
 * Parse a whole decimal number in [min, max] into *out. On error, prints
 * "<prog>: <what>: ..." and returns -EINVAL.
 */
int app_parse_u64(const char *prog, const char *what, const char *s,
		  uint64_t min, uint64_t max, uint64_t *out);

#endif /* _REFNIC_APP_COMMON_H_ */
