#!/usr/bin/python3
"""Writes the account, container and object rings of a one-node Swift.

  rings.py ETC_DIR ACCOUNT_PORT CONTAINER_PORT OBJECT_PORT

Run by start-swift.sh with Debian's python3 (the one python3-swift is
installed for). One process builds all three rings with Swift's own
RingBuilder: three runs of swift-ring-builder per ring would start Python
nine times. Each ring has one replica on one device, "d1" on 127.0.0.1 at
the given port, so every partition lives in STATE/node/d1.
"""
import os
import sys

from swift.common.ring import RingBuilder

PART_POWER = 8  # 256 partitions: plenty for one device
REPLICAS = 1
MIN_PART_HOURS = 0


def write_ring(etc, kind, port):
    builder = RingBuilder(PART_POWER, REPLICAS, MIN_PART_HOURS)
    builder.add_dev({"id": 0, "region": 1, "zone": 1, "ip": "127.0.0.1", "port": port,
                     "device": "d1", "weight": 1.0, "meta": ""})
    builder.rebalance()
    path = os.path.join(etc, f"{kind}.ring.gz")
    builder.get_ring().save(path + ".tmp")
    os.replace(path + ".tmp", path)


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: rings.py ETC_DIR ACCOUNT_PORT CONTAINER_PORT OBJECT_PORT")
    etc = sys.argv[1]
    for kind, port in zip(("account", "container", "object"), sys.argv[2:]):
        write_ring(etc, kind, int(port))


if __name__ == "__main__":
    main()
