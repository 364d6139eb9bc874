#pragma once

#include <vector>

namespace limbic::stats {

// The q-quantile of `values` (q in [0, 1]) by linear interpolation between the order statistics (the
// "type 7" definition of Hyndman and Fan 1996, R's and NumPy's default): position h = (n − 1)·q,
// result x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]) over the sorted values. NaN for no values; throws
// std::invalid_argument for q outside [0, 1] or NaN. Values are taken by copy (sorted here).
double Quantile(std::vector<double> values, double q);

// Quantile(values, 0.5): the middle value, or the mean of the two middle values for an even count.
double Median(std::vector<double> values);

}  // namespace limbic::stats
