/** What one ingest is asked to do: pull a source and cut it into segments in a directory. */
export interface IngestSpec {
  /** The stream uid, for logs and process titles. */
  uid: string;
  /** The source URL; may carry credentials, so it is never logged as it is. */
  sourceUrl: string;
  /** Directory the ingest writes its segment files into; it exists and belongs to this run alone. */
  segmentDir: string;
  /** Target segment length in seconds; cuts fall on keyframes, so real lengths vary a little. */
  segmentSeconds: number;
}

/** A finished segment file: complete and closed by the ingest, not yet synced or indexed. */
export interface IngestSegment {
  path: string;
  /** Seconds from the start of this run's media timeline. */
  start: number;
  duration: number;
}

export interface IngestListener {
  segment(segment: IngestSegment): void;
  /** The ingest ended on its own (source lost, refused, bad data). `reason` holds no credentials. */
  exit(reason: string): void;
}

/** A running ingest. stop() ends it (gracefully, then by force) and resolves once it is gone. */
export interface Ingest {
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * A way of turning a source into segments. The supervisor owns retries, status and the index;
 * a driver only runs one ingest at a time per call and reports what happens.
 */
export interface StreamDriver {
  readonly name: string;
  start(spec: IngestSpec, listener: IngestListener): Ingest;
}
