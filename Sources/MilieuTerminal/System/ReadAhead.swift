@_spi(MilieuInternal) import Milieu

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The bytes read from an input past the line that was asked for, kept for the next line.
///
/// Lines are read in blocks, so a block may hold the next answers too. A file is given them
/// back by seeking its offset back; a pipe or socket cannot be, so they wait here, per open file
/// (descriptor, device and inode: a descriptor number reused for another pipe finds nothing),
/// for the next ``FileDescriptorIO/readLine(_:limit:cancellation:)`` on it.
enum ReadAhead {
  private struct Identity: Hashable {
    var descriptor: Int32
    var device: UInt64
    var inode: UInt64
  }

  private static let kept = Lock<[Identity: [UInt8]]>([:])

  /// Takes what was kept for `descriptor`, or nothing.
  static func take(_ descriptor: Int32) -> [UInt8] {
    guard let identity = identity(of: descriptor) else { return [] }
    return kept.withLock { $0.removeValue(forKey: identity) } ?? []
  }

  /// Gives back bytes read past a line: to the file by seeking, or kept for the next read.
  static func giveBack(_ bytes: ArraySlice<UInt8>, to descriptor: Int32) {
    guard !bytes.isEmpty else { return }
    if lseek(descriptor, off_t(-bytes.count), SEEK_CUR) >= 0 { return }
    guard let identity = identity(of: descriptor) else { return }
    kept.withLock { $0[identity] = Array(bytes) }
  }

  private static func identity(of descriptor: Int32) -> Identity? {
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return nil }
    return Identity(
      descriptor: descriptor, device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
  }
}
