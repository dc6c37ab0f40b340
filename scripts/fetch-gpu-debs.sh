#!/usr/bin/env bash
# Downloads (no install) the Debian packages scripts/gpu-check.sh unpacks on the GPU machine,
# which has no package manager access: headers partcl builds against and the shared libraries
# HDF5 needs at run time. Into .deps/debs (ignored by git, carried by the device tool).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .deps/debs
cd .deps/debs
apt-get download \
    libboost1.74-dev opencl-clhpp-headers opencl-c-headers ocl-icd-opencl-dev ocl-icd-libopencl1 \
    doctest-dev libcli11-dev libtomlplusplus-dev libtomlplusplus3 libstb-dev libstb0 \
    libhdf5-dev libhdf5-103-1 libhdf5-hl-100 libsz2 libaec0 libcurl3-gnutls \
    libbrotli1 libgnutls30 libgssapi-krb5-2 libidn2-0 libldap-2.5-0 libnghttp2-14 libpsl5 \
    librtmp1 libssh2-1 libzstd1 libkrb5-3 libk5crypto3 libkrb5support0 libkeyutils1 libsasl2-2 \
    libsasl2-modules-db libnettle8 libhogweed6 libgmp10 libp11-kit0 libtasn1-6 libunistring2 \
    libffi8 libgomp1 libvkfft-dev nlohmann-json3-dev libssl-dev libssl3 \
    openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev libpmix2 libhwloc15 libhwloc-plugins \
    libevent-core-2.1-7 libevent-pthreads-2.1-7 libevent-2.1-7 libfabric1 libucx0 libibverbs1 \
    librdmacm1 libpsm2-2 libpsm-infinipath1 libnl-3-200 libnl-route-3-200 libnuma1 libltdl7 \
    libmunge2 libxnvctrl0 libpciaccess0 libgfortran5
ls -la
