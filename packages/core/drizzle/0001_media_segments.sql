CREATE TABLE "archive_gaps" (
	"id" serial PRIMARY KEY NOT NULL,
	"stream_id" integer NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone NOT NULL,
	"reason" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "segments" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"stream_id" integer NOT NULL,
	"sequence" integer NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"duration_ms" integer NOT NULL,
	"size_bytes" bigint NOT NULL,
	"path" text NOT NULL,
	"discontinuity" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "segments_path_unique" UNIQUE("path"),
	CONSTRAINT "segments_stream_sequence" UNIQUE("stream_id","sequence")
);
--> statement-breakpoint
ALTER TABLE "streams" ADD COLUMN "segment_sequence" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "archive_gaps" ADD CONSTRAINT "archive_gaps_stream_id_streams_id_fk" FOREIGN KEY ("stream_id") REFERENCES "public"."streams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "segments" ADD CONSTRAINT "segments_stream_id_streams_id_fk" FOREIGN KEY ("stream_id") REFERENCES "public"."streams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "archive_gaps_stream_started" ON "archive_gaps" USING btree ("stream_id","started_at");--> statement-breakpoint
CREATE INDEX "segments_stream_started" ON "segments" USING btree ("stream_id","started_at");