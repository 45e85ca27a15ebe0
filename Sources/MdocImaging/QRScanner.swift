internal import CZBar

/// One decoded QR code symbol.
package struct QRSymbol: Sendable, Hashable, Codable {
    /// The payload exactly as zbar returns it with `ZBAR_CFG_BINARY` set (no charset conversion).
    package let bytes: [UInt8]

    package init(bytes: [UInt8]) { self.bytes = bytes }

    /// The payload as UTF-8 text, or `nil` when it is not valid UTF-8.
    package var text: String? { String(validating: bytes, as: UTF8.self) }

    /// Whether the text starts with the `mdoc:` scheme (ISO/IEC 18013-5 §8.2.2.3), compared
    /// case-insensitively as RFC 3986 §3.1 says for schemes.
    package var isMdocURI: Bool {
        guard bytes.count >= 5 else { return false }
        let scheme = bytes.prefix(5).map { byte in (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
        return scheme == Array("mdoc:".utf8)
    }
}

/// Finds QR codes in 8-bit grey images with zbar.
///
/// zbar's image scanners are not thread-safe, so each ``scan(_:)`` creates its own scanner and
/// destroys it before returning: calls may run concurrently. Only QR codes are enabled (every
/// other symbology is switched off). zbar's QR finder locates the finder patterns at any
/// rotation, so a code turned in the image plane is found; mirrored images are not (apply the
/// EXIF orientation first). Perspective distortion and blur are handled as far as zbar does.
package enum QRScanner {
    /// Accepted values of the `lineStep` parameter.
    package static let lineStepRange = 1...8

    /// Returns every QR symbol zbar decodes, in zbar's order. An image without codes gives `[]`.
    ///
    /// `lineStep` is zbar's scan density (`ZBAR_CFG_X_DENSITY`, `ZBAR_CFG_Y_DENSITY`): every
    /// `lineStep`-th row and column is searched for finder patterns. 1 finds the smallest codes;
    /// 2 halves the line scanning and still finds codes whose modules are 2 pixels or more.
    package static func scan(_ image: GrayImage, lineStep: Int = 1) throws(ImageError) -> [QRSymbol] {
        guard lineStepRange.contains(lineStep) else {
            throw ImageError(.invalidArgument, "line step \(lineStep) is outside \(lineStepRange)")
        }
        let density = Int32(lineStep)
        let scanner = ZBarImageScanner()
        guard let handle = scanner.handle else { throw ImageError(.scanFailed, "zbar_image_scanner_create failed") }
        // Every symbology off, then QR on, in binary mode (bytes as encoded).
        guard zbar_image_scanner_set_config(handle, ZBAR_NONE, ZBAR_CFG_ENABLE, 0) == 0,
            zbar_image_scanner_set_config(handle, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1) == 0,
            zbar_image_scanner_set_config(handle, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1) == 0,
            zbar_image_scanner_set_config(handle, ZBAR_NONE, ZBAR_CFG_X_DENSITY, density) == 0,
            zbar_image_scanner_set_config(handle, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, density) == 0
        else { throw ImageError(.scanFailed, "zbar_image_scanner_set_config refused the QR configuration") }

        guard let zimage = zbar_image_create() else { throw ImageError(.scanFailed, "zbar_image_create failed") }
        defer { zbar_image_destroy(zimage) }
        // FourCC "Y800": 8-bit grey, one byte per pixel (zbar_fourcc is a macro Swift cannot call).
        let y800: UInt = UInt(UInt8(ascii: "Y")) | UInt(UInt8(ascii: "8")) << 8 | UInt(UInt8(ascii: "0")) << 16
            | UInt(UInt8(ascii: "0")) << 24
        zbar_image_set_format(zimage, y800)
        zbar_image_set_size(zimage, UInt32(truncatingIfNeeded: image.width), UInt32(truncatingIfNeeded: image.height))

        return try image.pixels.withUnsafeBufferPointer { (pixels) throws(ImageError) -> [QRSymbol] in
            // No cleanup handler: the buffer belongs to Swift and outlives the scan; the image
            // is detached again before the closure returns.
            zbar_image_set_data(zimage, pixels.baseAddress, UInt(pixels.count), nil)
            defer { zbar_image_set_data(zimage, nil, 0, nil) }
            let found = zbar_scan_image(handle, zimage)
            guard found >= 0 else { throw ImageError(.scanFailed, "zbar_scan_image failed") }
            var symbols: [QRSymbol] = []
            var symbol = zbar_image_first_symbol(zimage)
            while let current = symbol {
                if zbar_symbol_get_type(current) == ZBAR_QRCODE {
                    let length = Int(zbar_symbol_get_data_length(current))
                    if let data = zbar_symbol_get_data(current), length > 0 {
                        let bytes = data.withMemoryRebound(to: UInt8.self, capacity: length) { pointer in
                            Array(UnsafeBufferPointer(start: pointer, count: length))
                        }
                        symbols.append(QRSymbol(bytes: bytes))
                    } else {
                        symbols.append(QRSymbol(bytes: []))
                    }
                }
                symbol = zbar_symbol_next(current)
            }
            return symbols
        }
    }
}

/// Owns one zbar image scanner; destroyed with its owner. Never shared between threads.
private final class ZBarImageScanner {
    let handle: OpaquePointer?
    init() { handle = zbar_image_scanner_create() }
    deinit { if let handle { zbar_image_scanner_destroy(handle) } }
}
