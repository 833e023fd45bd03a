import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1 connection, with a receive buffer that starts at 512 bytes instead of NIO's 2 KB.
///
/// Why: NIO keeps each connection's receive buffer between reads (`NIOPooledRecvBufferAllocator`), sized by the
/// adaptive allocator from its initial 2,048 bytes, so every open connection holds 2 KB whether it reads or not.
/// The apps' requests are a few hundred bytes (a bearer token and a small JSON body), and an event stream reads
/// nothing after its request: heaptrack on 2,000 idle streams counted these buffers at ~2 KB a connection, a tenth
/// of an idle stream's cost. A larger request still reads whole: the adaptive allocator grows the buffer (up to
/// 64 KB, NIO's default) when a read fills it, as it would from 2 KB.
struct SmallReadBufferChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let http1: HTTP1Channel

    /// The receive buffer's sizes: NIO's defaults, but for the initial size.
    static let receiveBuffer = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65536)

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.setOption(ChannelOptions.recvAllocator, value: Self.receiveBuffer).flatMap {
            self.http1.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await self.http1.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with ``SmallReadBufferChannel``'s receive buffer.
    static var http1SmallReadBuffer: HTTPServerBuilder {
        .init { responder in SmallReadBufferChannel(http1: HTTP1Channel(responder: responder)) }
    }
}
