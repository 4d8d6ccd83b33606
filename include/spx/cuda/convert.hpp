// GPU-side conversions from a DeviceCsr to the padded formats, so a matrix already on the device
// never goes back to the host to change format. The results equal the host conversions of
// spx/convert.hpp array for array (same width, ld / rows_padded rounded up to 32, real entries in the
// first slots of each row, padding (kPadding, 0), HYB tail sorted by (row, col)).
//
// The input is the canonical CSR that upload() validated. Sizes are decided on the host from a few
// device reductions (longest row, row-length histogram, tail count), so each call synchronises the
// stream a few times; the slab fill itself is one coalesced pass. Padded sizes are guarded as on the
// host: more than max_slots slots, more slots than the index type holds, or more bytes than the
// device has free is an spx::Error naming the padding ratio, before anything large is allocated.
// Instantiated for float/double with int32_t indices; to_ell and to_ellr also on 64-bit offsets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "spx/cuda/context.hpp"
#include "spx/cuda/formats.hpp"
#include "spx/cuda/spmv_sell_c16.hpp"

namespace spx::cuda {

// Ell padded to the longest row (or to `width` when >= 0; a longer row is an error).
//
// From 64-bit row offsets (WideDeviceCsr) the slab may hold more than 2^31 - 1 slots (the ELL
// kernels address slots in 64-bit arithmetic; rows, columns and the width stay 32-bit); max_slots
// still bounds it, so a matrix past 2^31 nonzeros passes a larger one (the planner's executor passes
// no bound: its padding rule and the device's free memory decide).
template <class T, class I, class O>
DeviceEll<T, I> to_ell(Context& ctx, const DeviceCsr<T, I, O>& A, I width = I{-1},
                       std::size_t max_slots = std::size_t{1} << 31);

template <class T, class I, class O>
DeviceEllR<T, I> to_ellr(Context& ctx, const DeviceCsr<T, I, O>& A,
                         std::size_t max_slots = std::size_t{1} << 31);

// Bell & Garland's ELL width for HYB, from a row-length histogram computed on the device: the
// largest K such that at least max(4096, rows/3) rows have K or more nonzeros (0 below 4096 rows).
template <class T, class I>
I hyb_ell_width(Context& ctx, const DeviceCsr<T, I>& A);

// Hyb with the given ELL width (< 0: hyb_ell_width). The tail is built with a device-wide scan of
// the per-row tail lengths.
template <class T, class I>
DeviceHyb<T, I> to_hyb(Context& ctx, const DeviceCsr<T, I>& A, I ell_width = I{-1});

// SELL-C16 (spx/sell_c16.hpp) converted on the device: the arrays to_sell_c16 builds on the host
// and upload_sell_c16 copies, without the host copy (a few milliseconds for 10^7 nonzeros instead
// of a host pass and an upload). A row spanning more than 65535 columns is an spx::Error naming it.
template <class T>
DeviceSellC16<T> to_sell_c16(Context& ctx, const DeviceCsr<T, int32_t>& A);
// The same from 64-bit row offsets (the slots are addressed in 64 bits either way).
template <class T>
DeviceSellC16<T> to_sell_c16(Context& ctx, const WideDeviceCsr<T>& A);

// SELL-C16 with a value dictionary, its table given (spx::sell_c16_dict_table of the matrix's values:
// 1..256 bitwise-distinct values, any order; the codes index it). A slot whose value is not in the
// table is an spx::Error.
template <class T>
DeviceSellC16Dict<T> to_sell_c16_dict(Context& ctx, const DeviceCsr<T, int32_t>& A, std::span<const T> table);
template <class T>
DeviceSellC16Dict<T> to_sell_c16_dict(Context& ctx, const WideDeviceCsr<T>& A, std::span<const T> table);

}  // namespace spx::cuda
