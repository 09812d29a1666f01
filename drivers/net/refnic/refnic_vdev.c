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

static void
refnic_vdev_release(struct refnic_adapter *ad)
{
	refnic_emu_destroy(ad->bus_priv);
	ad->bus_priv = NULL;
}

static const struct refnic_bus_ops refnic_vdev_bus_ops = {
	.release = refnic_vdev_release,
};

_Static_assert(REFNIC_ARG_ENGINES_MAX == REFNIC_EMU_MAX_ENGINES,
	       "engines=N allows what the device offers");

static int
refnic_vdev_emu_params(const char *name, const struct refnic_devargs *args,
		       struct refnic_emu_params *params)
{
	refnic_emu_params_default(params);
	strlcpy(params->cable, args->cable, sizeof(params->cable));
	if (args->queues != 0)
		params->max_queues = args->queues;
	if (args->engines != 0)
		params->engines = args->engines;
	if (args->admin_latency_pct >= 0)
		params->admin_latency_pct = args->admin_latency_pct;
	params->faults.reset_fail_times = args->fault_reset_fail;
	if (args->fault_admin_timeout[0] != '\0' &&
	    refnic_emu_parse_admin_timeout(args->fault_admin_timeout, &params->faults) != 0)
		return -EINVAL;
	if (args->profile[0] != '\0' &&
	    refnic_emu_profile_parse(args->profile, &params->profile) != 0) {
		PMD_INIT_LOG(ERR, "%s: invalid %s=%s: expected ideal, baremetal or vm",
			     name, REFNIC_ARG_PROFILE, args->profile);
		return -EINVAL;
	}
	return 0;
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
	struct refnic_hw hw;
	int ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		PMD_INIT_LOG(ERR, "%s: secondary processes are not supported", name);
		return -ENOTSUP;
	}
	ret = refnic_devargs_parse(name, rte_vdev_device_args(vdev), &args);
	if (ret == 0)
		ret = refnic_vdev_emu_params(name, &args, &params);
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
	hw.emu_link = res.link;
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

	if (eth_dev == NULL)
		return 0;	/* already closed */
	/* Removing the device ends the port, started or not. */
	if (eth_dev->data->dev_started)
		rte_eth_dev_stop(eth_dev->data->port_id);
	return rte_eth_dev_close(eth_dev->data->port_id);
}

static struct rte_vdev_driver refnic_vdev_driver = {
	.probe = refnic_vdev_probe,
	.remove = refnic_vdev_remove,
};

RTE_PMD_REGISTER_VDEV(REFNIC_DRIVER_NAME, refnic_vdev_driver);
RTE_PMD_REGISTER_PARAM_STRING(REFNIC_DRIVER_NAME, REFNIC_PARAM_STRING);
