#!/bin/sh
# The layer check (scripts/check-layers.sh): each layer of user/ includes only the layers
# below it, and lib/ and core/ no package's headers. Needs no root.
set -eu
sh "$(dirname "$0")/../scripts/check-layers.sh"
