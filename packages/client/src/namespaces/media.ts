import type { Transport } from '../transport';

/** A stretch of the archive: `from` in Unix seconds, `duration` in seconds (at most a day). */
export interface ArchiveWindow {
  from: number;
  duration: number;
}

/** Playback URLs of one stream, each carrying the access token in `?token=`. */
export interface MediaLinks {
  /** The live HLS playlist; the segment URIs inside carry the token too. */
  live: string;
  /** A JPEG of the newest recorded keyframe. */
  preview: string;
  /** The HLS VOD playlist of the segments overlapping the window. */
  archive(window: ArchiveWindow): string;
  /** The window as a fragmented MP4 download. */
  export(window: ArchiveWindow): string;
  /** The embeddable HTML player: of the live stream, or of the window when one is given. */
  player(window?: ArchiveWindow): string;
}

export interface MediaOptions {
  /**
   * An access token of the stream (or an API token), sent in `?token=`. Without it the client's
   * API token is sent in the Authorization header, and playlists then list their segments without
   * a token.
   */
  token?: string;
}

export function createMedia(transport: Transport) {
  return {
    /**
     * Builds the playback URLs of stream `uid` on the client's `baseUrl` for an access token (see
     * `auth.issueAccessToken`), without asking the server. They are meant for players and
     * browsers, which cannot send headers, so the token goes in the query.
     */
    urls(uid: string, accessToken: string): MediaLinks {
      const link = (
        name: 'mediaLive' | 'mediaPreview' | 'mediaArchive' | 'mediaExport' | 'mediaPlayer',
        query: Record<string, string | number> = {},
      ) => transport.url(name, { params: { uid }, query: { ...query, token: accessToken } });
      return {
        live: link('mediaLive'),
        preview: link('mediaPreview'),
        archive: ({ from, duration }) => link('mediaArchive', { from, duration }),
        export: ({ from, duration }) => link('mediaExport', { from, duration }),
        player: (window) => (window ? link('mediaPlayer', { mode: 'archive', from: window.from, duration: window.duration }) : link('mediaPlayer')),
      };
    },

    /** A JPEG of the stream's newest recorded keyframe. A stream with no video yet is a NotFoundError. */
    async preview(uid: string, options: MediaOptions = {}): Promise<Uint8Array> {
      return (await transport.call('mediaPreview', { params: { uid }, query: { token: options.token } })).data;
    },

    /** The live HLS playlist (its newest segments). A token that does not open the stream is a ForbiddenError. */
    async livePlaylist(uid: string, options: MediaOptions = {}): Promise<string> {
      return (await transport.call('mediaLive', { params: { uid }, query: { token: options.token } })).data;
    },
  };
}
