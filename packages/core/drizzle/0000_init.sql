CREATE TABLE "analytic_cases" (
	"id" serial PRIMARY KEY NOT NULL,
	"camera_id" integer NOT NULL,
	"kind" text NOT NULL,
	"status" text DEFAULT 'CREATED' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_tokens" (
	"id" serial PRIMARY KEY NOT NULL,
	"client" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	CONSTRAINT "api_tokens_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "camera_archive_settings" (
	"camera_id" integer NOT NULL,
	"type" text NOT NULL,
	"is_archive_enabled" boolean NOT NULL,
	"archive_storage_days" integer,
	CONSTRAINT "camera_archive_settings_camera_id_type_pk" PRIMARY KEY("camera_id","type")
);
--> statement-breakpoint
CREATE TABLE "cameras" (
	"id" serial PRIMARY KEY NOT NULL,
	"uuid" uuid NOT NULL,
	"name" text NOT NULL,
	"status" text DEFAULT '' NOT NULL,
	"mac" text NOT NULL,
	"serial_number" text DEFAULT '' NOT NULL,
	"group_type" text NOT NULL,
	"tree_element_id" integer NOT NULL,
	"folder_id" integer,
	"is_user_owner" boolean DEFAULT false NOT NULL,
	"is_need_replace" boolean DEFAULT false NOT NULL,
	"latitude" double precision,
	"longitude" double precision,
	"service" text,
	"external_id" text,
	"onvif_login" text,
	"onvif_password_encrypted" text,
	"onvif_port" integer,
	"is_can_manage_archive_storage_days" boolean,
	"log_extra" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cameras_uuid_unique" UNIQUE("uuid"),
	CONSTRAINT "cameras_mac_unique" UNIQUE("mac"),
	CONSTRAINT "cameras_external_id_unique" UNIQUE("external_id")
);
--> statement-breakpoint
CREATE TABLE "folders" (
	"id" serial PRIMARY KEY NOT NULL,
	"tree_element_id" integer NOT NULL,
	"name" text NOT NULL,
	"key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "folders_tree_element_key" UNIQUE("tree_element_id","key")
);
--> statement-breakpoint
CREATE TABLE "intercoms" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"vendor" text NOT NULL,
	"host" text NOT NULL,
	"port" integer NOT NULL,
	"login" text NOT NULL,
	"password_encrypted" text NOT NULL,
	"last_restart_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "streams" (
	"id" serial PRIMARY KEY NOT NULL,
	"uid" text NOT NULL,
	"camera_id" integer NOT NULL,
	"type" text NOT NULL,
	"source_url_encrypted" text,
	"status" text DEFAULT 'empty' NOT NULL,
	"is_archive_enabled" boolean DEFAULT false NOT NULL,
	"archive_storage_days" integer,
	"reconnect_attempts" integer DEFAULT 0 NOT NULL,
	"reconnects_total" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"last_error_at" timestamp with time zone,
	"reconnection_reset_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "streams_uid_unique" UNIQUE("uid"),
	CONSTRAINT "streams_camera_type" UNIQUE("camera_id","type")
);
--> statement-breakpoint
CREATE TABLE "tree_elements" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"key" text,
	"parent_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tree_elements_key_unique" UNIQUE("key")
);
--> statement-breakpoint
ALTER TABLE "analytic_cases" ADD CONSTRAINT "analytic_cases_camera_id_cameras_id_fk" FOREIGN KEY ("camera_id") REFERENCES "public"."cameras"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "camera_archive_settings" ADD CONSTRAINT "camera_archive_settings_camera_id_cameras_id_fk" FOREIGN KEY ("camera_id") REFERENCES "public"."cameras"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cameras" ADD CONSTRAINT "cameras_tree_element_id_tree_elements_id_fk" FOREIGN KEY ("tree_element_id") REFERENCES "public"."tree_elements"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cameras" ADD CONSTRAINT "cameras_folder_id_folders_id_fk" FOREIGN KEY ("folder_id") REFERENCES "public"."folders"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "folders" ADD CONSTRAINT "folders_tree_element_id_tree_elements_id_fk" FOREIGN KEY ("tree_element_id") REFERENCES "public"."tree_elements"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "streams" ADD CONSTRAINT "streams_camera_id_cameras_id_fk" FOREIGN KEY ("camera_id") REFERENCES "public"."cameras"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tree_elements" ADD CONSTRAINT "tree_elements_parent_id_tree_elements_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."tree_elements"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "analytic_cases_camera" ON "analytic_cases" USING btree ("camera_id");--> statement-breakpoint
CREATE INDEX "cameras_tree_element" ON "cameras" USING btree ("tree_element_id");