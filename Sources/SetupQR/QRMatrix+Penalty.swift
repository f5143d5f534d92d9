/// The mask evaluation of ISO/IEC 18004:2015 §7.8.3, Table 11.
extension QRMatrix {
    /// Points for five or more same-coloured modules in a line, plus one per module beyond five.
    static let runPenalty = 3
    /// Points for each 2 × 2 block of one colour, overlapping blocks counted separately.
    static let blockPenalty = 3
    /// Points for each 1:1:3:1:1 finder-like pattern with four light modules on a side.
    static let finderLikePenalty = 40
    /// Points for each full 5% by which the dark proportion strays from 50%.
    static let balancePenalty = 10

    /// The penalty score; the mask giving the lowest is the one to use.
    var penalty: Int {
        var score = 0
        for index in 0..<size {
            let row = (0..<size).map { self[$0, index] }
            let column = (0..<size).map { self[index, $0] }
            score += Self.linePenalty(row) + Self.linePenalty(column)
        }
        for y in 0..<size - 1 {
            for x in 0..<size - 1 {
                let colour = self[x, y]
                if self[x + 1, y] == colour && self[x, y + 1] == colour && self[x + 1, y + 1] == colour {
                    score += Self.blockPenalty
                }
            }
        }
        let dark = modules.count { $0 }
        let total = modules.count
        // k = ⌈|20 × dark − 10 × total| / total⌉ − 1 counts whole 5% steps away from 50%, as the reference does.
        let steps = (abs(dark * 20 - total * 10) + total - 1) / total - 1
        score += max(0, steps) * Self.balancePenalty
        return score
    }

    /// Runs of one colour and finder-like patterns in one row or column.
    ///
    /// A finder-like pattern is dark, light, dark, light, dark runs in the ratio 1:1:3:1:1 with light of at least 4
    /// on one side and at least 1 on the other; it counts once for each side that has 4. The quiet zone around the
    /// symbol counts as light, so a pattern at the edge counts as it would to a reader. This follows Nayuki's
    /// reference encoder (qrcodegen), which reads Table 11 the same way, so both pick the same mask.
    static func linePenalty(_ line: [Bool]) -> Int {
        // Runs of alternating colour, the first one light (perhaps empty), the last one light (perhaps empty).
        var runs = [0]
        for (index, module) in line.enumerated() {
            if module == (runs.count % 2 == 0) {
                runs[runs.count - 1] += 1
            } else {
                runs.append(1)
            }
            if index == line.count - 1 && module {
                runs.append(0)
            }
        }
        var score = 0
        for length in runs where length >= 5 {
            score += runPenalty + length - 5
        }
        // The quiet zone continues the light runs at both ends.
        runs[0] += line.count
        runs[runs.count - 1] += line.count
        for start in stride(from: 0, to: runs.count - 6, by: 2) {
            let unit = runs[start + 1]
            let before = runs[start]
            let after = runs[start + 6]
            let isCore =
                runs[start + 2] == unit && runs[start + 3] == 3 * unit && runs[start + 4] == unit
                && runs[start + 5] == unit
            if isCore && before >= 4 * unit && after >= unit {
                score += finderLikePenalty
            }
            if isCore && after >= 4 * unit && before >= unit {
                score += finderLikePenalty
            }
        }
        return score
    }
}
