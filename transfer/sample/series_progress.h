#ifndef XFERCMP_SERIES_PROGRESS_H
#define XFERCMP_SERIES_PROGRESS_H

/*
 * How far a window's traffic had come, read from its series (sampler.h):
 * when the interface had carried a given share of the bytes it carried
 * over the whole window. A sample's forecast reads from it how fast a run
 * went once its connection was warm (docs/MODEL.md, "From a sample").
 */

#include "sample/sampler.h"

/*
 * The seconds from the window's start at which its series' bytes (the
 * busier direction, slice by slice) reached fraction (0 < fraction < 1) of
 * their total, taken as even within the slice where they did. -1: no
 * interface, no bytes, or no such fraction.
 */
double series_time_at_fraction(const struct sampler_summary *s, double fraction);

#endif
