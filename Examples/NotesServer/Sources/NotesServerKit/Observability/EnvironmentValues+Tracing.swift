import HTTPTypes
import Milieu
import Tracing

extension EnvironmentValues {
  static let tracer = Entry<any Tracer>(NoOpTracer())

  /// The tracer spans are started with. The default records nothing; the app node sets the
  /// process's tracer (swift-otel's, say), a test an `InMemoryTracer`.
  ///
  /// ```swift
  /// app.set(\.tracer, to: InMemoryTracer())
  /// ```
  public var tracer: any Tracer {
    get { self[Self.tracer] }
    set { self[Self.tracer] = newValue }
  }

  static let serviceContext = Entry(ServiceContext.topLevel)

  /// The `ServiceContext` the current request arrived with: the trace it is part of, as its
  /// trace headers (`traceparent` for a W3C tracer) carried it, extracted by the tracer;
  /// `.topLevel` outside a request, or for a request that carried none.
  ///
  /// ``RequestEnvironmentMiddleware`` sets it on each request's node, so any service reads
  /// it, and ``startSpan(_:)`` starts spans as its children.
  ///
  /// ```swift
  /// let context = EnvironmentNode.current[\.serviceContext]
  /// ```
  public var serviceContext: ServiceContext {
    get { self[Self.serviceContext] }
    set { self[Self.serviceContext] = newValue }
  }

  /// Starts a span with these values' tracer, as a child of their ``serviceContext``, carrying
  /// the request's id and user as the attributes `request.id` and `user`.
  ///
  /// End it when the work is done. Work handed to a `Task.detached` re-enters the request's
  /// node with `node.withCurrent { … }` first, so that its spans carry the request too.
  ///
  /// ```swift
  /// let span = EnvironmentNode.current.values.startSpan("notes.store.add")
  /// defer { span.end() }
  /// ```
  ///
  /// - Parameter operationName: What the span times.
  /// - Returns: The span, started.
  public func startSpan(_ operationName: String) -> any Span {
    let span: any Span = tracer.startSpan(operationName, context: serviceContext)
    if let requestID { span.attributes["request.id"] = requestID }
    if let authenticatedUser { span.attributes["user"] = authenticatedUser.name }
    return span
  }
}

/// Reads trace headers from a request's HTTP fields, for a tracer's `extract`.
///
/// ```swift
/// tracer.extract(request.headers, into: &context, using: HTTPFieldsExtractor())
/// ```
public struct HTTPFieldsExtractor: Extractor {
  /// Creates the extractor.
  public init() {}

  /// The value of a field, the values of repeated fields joined by commas.
  ///
  /// - Parameters:
  ///   - key: The field's name.
  ///   - carrier: The fields.
  /// - Returns: The value, or `nil` when the field is absent or its name is not valid.
  public func extract(key: String, from carrier: HTTPFields) -> String? {
    guard let name = HTTPField.Name(key) else { return nil }
    return carrier[name]
  }
}
