import Sensors
import Testing

/// Inputs that fuzz/targets/sysfs_number.swift found (scripts/fuzz.sh sysfs_number).
@Suite struct SysfsNumberFuzzRegressionTests {
    /// `format` trapped converting millionths of a large value to Int64. It logs raw
    /// readings that are out of range, so an `in_accel_x_raw` of "1e15" (or a big s64
    /// buffer value) crashed the daemon instead of dropping the sample.
    @Test(arguments: [1e15, -1e15, 1e13 + 0.5, 9.3e12 + 0.25, 1e12 + 0.5, 1e9 + 0.5, SysfsNumber.limit, 1e300, -1.7976931348623157e308])
    func formatsLargeValues(value: Double) throws {
        let text = SysfsNumber.format(value)
        #expect(!text.contains(","))
        let again = try #require(Double(text))
        #expect(abs(again - value) <= abs(value) * 1e-15)
    }

    @Test func formatsParsedReadings() throws {
        for reading in ["1e15", "-1000000000000000", "10000000000000.5\n"] {
            let value = try #require(SysfsNumber.parseDouble(reading))
            #expect(SysfsNumber.parseDouble(SysfsNumber.format(value)) == value)
        }
    }

    @Test func formatsNonFiniteValues() {
        #expect(SysfsNumber.format(.nan) == "nan")
        #expect(SysfsNumber.format(.infinity) == "inf")
        #expect(SysfsNumber.format(-.infinity) == "-inf")
    }

    /// Below 1e9 the fixed six-decimal form stays; above, the shortest exact form.
    @Test func smallValuesKeepSixDecimals() {
        #expect(SysfsNumber.format(999_999_999.5) == "999999999.5")
        #expect(SysfsNumber.format(999_999_999_999.5) == "999999999999.5")
        #expect(SysfsNumber.format(-123.4567891) == "-123.456789")
    }
}
