/** The first index of a sorted list whose item is not before the point sought (`before(i)`: item i is), by halving. */
export function firstIndex(length: number, before: (index: number) => boolean): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (before(middle)) low = middle + 1;
    else high = middle;
  }
  return low;
}
