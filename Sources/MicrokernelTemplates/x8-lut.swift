import TasksVisionKernels
import TasksVisionVectorFMA

// A 256-entry byte table applied to a run of bytes (XNNPACK's `x8-lut ... vpshufb`), `LUTBytes.scalarCount` at a
// time: the table as 16 rows of 16 bytes, each repeated in every 128-bit lane; `vpshufb` looks a byte up in one row
// and gives 0 where the index is negative. The index goes down by 16 per row (wrapping for rows 1 to 8, saturating
// at -128 for rows 9 to 15), so byte x is non-negative exactly in rows 0...x/16 (x < 128) or x/16-7...x/16
// (x >= 128); the rows are stored folded (`row[i] ^ row[i-1]`, and `^ folded[i-8]` from row 8 on) so that the
// results of those rows, XORed, are the table's entry. The last `count % scalarCount` bytes one by one. Only in the
// AVX2 and AVX-512 sets.

public func x8LUT(_ x: UnsafePointer<UInt8>, _ y: UnsafeMutablePointer<UInt8>, count: Int,
                  table: UnsafePointer<UInt8>) {
    let W = LUTBytes.scalarCount
    withUnsafeTemporaryAllocation(of: LUTBytes.self, capacity: 16) { folded in
        func row(_ r: Int) -> LUTBytes {
            var v = LUTBytes()
            for j in 0..<W { v[j] = table[16 &* r &+ (j & 15)] }
            return v
        }
        folded[0] = row(0)
        for r in 1..<16 {
            folded[r] = xorBytes(xorBytes(row(r &- 1), row(r)), r >= 8 ? folded[r &- 8] : LUTBytes())
        }
        let t0 = folded[0], t1 = folded[1], t2 = folded[2], t3 = folded[3], t4 = folded[4], t5 = folded[5]
        let t6 = folded[6], t7 = folded[7], t8 = folded[8], t9 = folded[9], t10 = folded[10], t11 = folded[11]
        let t12 = folded[12], t13 = folded[13], t14 = folded[14], t15 = folded[15]
        let step = LUTIndices(repeating: 16)
        var i = 0
        while i &+ W <= count {
            var v = UnsafeRawPointer(x + i).loadUnaligned(as: LUTIndices.self)
            var r = shuffleBytes(t0, v)
            v &-= step; r = xorBytes(r, shuffleBytes(t1, v))
            v &-= step; r = xorBytes(r, shuffleBytes(t2, v))
            v &-= step; r = xorBytes(r, shuffleBytes(t3, v))
            v &-= step; r = xorBytes(r, shuffleBytes(t4, v))
            v &-= step; r = xorBytes(r, shuffleBytes(t5, v))
            v &-= step; r = xorBytes(r, shuffleBytes(t6, v))
            v &-= step; r = xorBytes(r, shuffleBytes(t7, v))
            v &-= step; r = xorBytes(r, shuffleBytes(t8, v))
            v = subtractSaturating(v, step); r = xorBytes(r, shuffleBytes(t9, v))
            v = subtractSaturating(v, step); r = xorBytes(r, shuffleBytes(t10, v))
            v = subtractSaturating(v, step); r = xorBytes(r, shuffleBytes(t11, v))
            v = subtractSaturating(v, step); r = xorBytes(r, shuffleBytes(t12, v))
            v = subtractSaturating(v, step); r = xorBytes(r, shuffleBytes(t13, v))
            v = subtractSaturating(v, step); r = xorBytes(r, shuffleBytes(t14, v))
            v = subtractSaturating(v, step); r = xorBytes(r, shuffleBytes(t15, v))
            UnsafeMutableRawPointer(y + i).storeBytes(of: r, as: LUTBytes.self)
            i &+= W
        }
        while i < count { y[i] = table[Int(x[i])]; i &+= 1 }
    }
}
