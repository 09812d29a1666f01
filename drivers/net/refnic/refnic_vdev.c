/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The bus side of probe for the embedded device: the one place that knows
 * the NIC is software. It creates the device instance and hands the PMD the
 * device's BAR, emulated-BAR link and interrupt eventfds, as the PCI bus
 * would hand a mem_resource and an intr_handle. After that the PMD reaches
 * the device only through them.
 */

#include <bus_vdev_driver.h>
#include <ethdev_vdev.h>
#include <rte_string_fns.h>

#include "refnic.h"
#include "refnic_emu.h"
#include "refnic_vdev.h"

/* Every devarg of net_refnic: the driver's, then the device's. */
#define REFNIC_PARAM_STRING	REFNIC_DRV_PARAM_STRING " " REFNIC_EMU_PARAM_STRING

_Static_assert(__builtin_types_compatible_p(refnic_bar_trap_t, refnic_emu_trap_t),
	       "the device's trap is what the BAR accessor calls");

static void
refnic_vdev_release(struct refnic_adapter *ad)
{
	refnic_emu_destroy(ad->bus_priv);
	ad->bus_priv = NULL;
}

static const struct refnic_bus_ops refnic_vdev_bus_ops = {
	.release = refnic_vdev_release,
};

static bool
key_in(const char *key, const char * const *keys)
{
	for (; *keys != NULL; keys++)
		if (strcmp(key, *keys) == 0)
			return true;
	return false;
}

/*
 * One devargs string, two owners: the driver's keys go to the driver, the
 * device's own (cable, profile, exec, ...) to the device. A key neither
 * knows fails the probe.
 */
int
refnic_vdev_parse_args(const char *name, const char *args, struct refnic_devargs *drv,
		       struct refnic_emu_params *params)
{
	struct rte_kvargs *kvlist = NULL;
	unsigned int i;
	int ret = -EINVAL;

	if (args != NULL && args[0] != '\0') {
		unsigned int pairs = 1;
		const char *c;

		for (c = args; *c != '\0'; c++)
			pairs += *c == ',';
		if (pairs > RTE_KVARGS_MAX) {
			PMD_INIT_LOG(ERR, "%s: %u devargs, at most %u", name, pairs, RTE_KVARGS_MAX);
			return -EINVAL;
		}
		kvlist = rte_kvargs_parse(args, NULL);
		if (kvlist == NULL) {
			PMD_INIT_LOG(ERR, "%s: cannot parse devargs '%.64s%s': expected key=value,...",
				     name, args, strlen(args) > 64 ? "..." : "");
			return -EINVAL;
		}
	}
	for (i = 0; kvlist != NULL && i < kvlist->count; i++) {
		const char *key = kvlist->pairs[i].key;
		unsigned int j;

		if (!key_in(key, refnic_devargs_keys) && !key_in(key, refnic_emu_devargs_keys)) {
			PMD_INIT_LOG(ERR, "%s: unknown devarg '" REFNIC_ARG_QUOTE_FMT "' (known: %s)",
				     name, REFNIC_ARG_QUOTE(key), REFNIC_PARAM_STRING);
			goto out;
		}
		/* Last-wins would hide a typo in a long line: refuse. */
		for (j = 0; j < i; j++)
			if (strcmp(key, kvlist->pairs[j].key) == 0) {
				PMD_INIT_LOG(ERR, "%s: devarg '" REFNIC_ARG_QUOTE_FMT "' given twice",
					     name, REFNIC_ARG_QUOTE(key));
				goto out;
			}
	}
	if (refnic_devargs_parse(kvlist, drv) == 0 &&
	    refnic_emu_devargs_parse(name, kvlist, params) == 0)
		ret = 0;
out:
	rte_kvargs_free(kvlist);
	return ret;
}

static void
refnic_vdev_release_secondary(struct refnic_bar *hw)
{
	refnic_emu_remote_detach(hw->trap_ctx);
}

/*
 * A secondary process: the port and its device are the primary's. Attach to
 * both; this process's stores reach the device through a trap of its own.
 * Devargs are the primary's (EAL hands them over), nothing to parse.
 */
static int
refnic_vdev_probe_secondary(struct rte_vdev_device *vdev, const char *name)
{
	struct refnic_emu_resources res;
	struct refnic_secondary *sec;
	struct rte_eth_dev *eth_dev;
	int ret;

	eth_dev = rte_eth_dev_attach_secondary(name);
	if (eth_dev == NULL) {
		PMD_INIT_LOG(ERR, "%s: the primary process has no such port", name);
		return -ENODEV;
	}
	sec = calloc(1, sizeof(*sec));
	if (sec == NULL) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = refnic_emu_remote_attach(name, &res);
	if (ret != 0) {
		free(sec);
		goto fail;
	}
	sec->hw.bar0 = res.bar0;
	sec->hw.trap = res.trap;
	sec->hw.trap_ctx = res.trap_ctx;
	sec->hw.tx_push = false;
	sec->hw.nb_vectors = 0;
	memcpy(sec->hw.vector_fd, res.vector_fd, sizeof(sec->hw.vector_fd));
	sec->release = refnic_vdev_release_secondary;
	eth_dev->device = &vdev->device;
	refnic_secondary_init(eth_dev, sec);
	rte_eth_dev_probing_finish(eth_dev);
	return 0;
fail:
	rte_eth_dev_release_port(eth_dev);
	return ret;
}

static int
refnic_vdev_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct refnic_emu_resources res;
	struct refnic_emu_params params;
	struct refnic_devargs args;
	struct rte_eth_dev *eth_dev;
	struct refnic_emu *emu;
	struct refnic_bar hw;
	int ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return refnic_vdev_probe_secondary(vdev, name);
	ret = refnic_vdev_parse_args(name, rte_vdev_device_args(vdev), &args, &params);
	if (ret != 0)
		return ret;
	ret = refnic_emu_create(name, &params, &emu);
	if (ret != 0) {
		PMD_INIT_LOG(ERR, "%s: cannot create the embedded device: %s",
			     name, rte_strerror(-ret));
		return ret;
	}
	refnic_emu_get_resources(emu, &res);
	hw.bar0 = res.bar0;
	hw.trap = res.trap;
	hw.trap_ctx = res.trap_ctx;
	hw.tx_push = false;	/* until refnic_wc_select() says */
	hw.nb_vectors = res.nb_vectors;
	memcpy(hw.vector_fd, res.vector_fd, sizeof(hw.vector_fd));

	eth_dev = rte_eth_vdev_allocate(vdev, sizeof(struct refnic_adapter));
	if (eth_dev == NULL) {
		refnic_emu_destroy(emu);
		return -ENOMEM;
	}
	ret = refnic_ethdev_init(eth_dev, &hw, &args, &refnic_vdev_bus_ops, emu);
	if (ret != 0) {
		PMD_INIT_LOG(ERR, "%s: initialisation failed: %s", name, rte_strerror(-ret));
		rte_eth_dev_release_port(eth_dev);
		refnic_emu_destroy(emu);
		return ret;
	}
	rte_eth_dev_probing_finish(eth_dev);
	return 0;
}

static int
refnic_vdev_remove(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *eth_dev = rte_eth_dev_allocated(rte_vdev_device_name(vdev));

	/* Already closed: in a secondary, ethdev keeps the shared data (and its
	 * name) of a port it released, so the state says. */
	if (eth_dev == NULL || eth_dev->state == RTE_ETH_DEV_UNUSED)
		return 0;
	/* Removing the device ends the port, started or not; in a secondary
	 * only this process's use of it. A recovery on the interrupt thread
	 * may be starting the port again: it ends first. */
	if (rte_eal_process_type() == RTE_PROC_PRIMARY) {
		refnic_recovery_wait(refnic_adapter(eth_dev));
		if (eth_dev->data->dev_started)
			rte_eth_dev_stop(eth_dev->data->port_id);
	}
	return rte_eth_dev_close(eth_dev->data->port_id);
}

static struct rte_vdev_driver refnic_vdev_driver = {
	.probe = refnic_vdev_probe,
	.remove = refnic_vdev_remove,
};

RTE_PMD_REGISTER_VDEV(REFNIC_DRIVER_NAME, refnic_vdev_driver);
RTE_PMD_REGISTER_PARAM_STRING(REFNIC_DRIVER_NAME, REFNIC_PARAM_STRING);
