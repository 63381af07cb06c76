/** What every video provider is given and answers (relay/tasks/video.ts keeps the table of them). */

/** A video to make, in the gateway's terms (routes/videos.ts and the Gemini route both give this). */
export interface VideoAsk {
  prompt: string;
  seconds: number;
  /** Veo's `aspectRatio` (16:9 or 9:16). */
  aspectRatio?: string;
  /** Veo's `resolution` (720p, 1080p). */
  resolution?: string;
  negativePrompt?: string;
  /** A first frame: base64 bytes and their type. */
  image?: { mimeType: string; data: string };
}

/** What a poll learns of one video task (every video provider answers this). */
export interface VideoState {
  upstreamId: string;
  status: 'IN_PROGRESS' | 'SUCCESS' | 'FAILURE';
  failReason: string;
  progress: string;
  /** The generated videos' download URIs (upstream storage: never shown to a client). */
  uris: string[];
}
