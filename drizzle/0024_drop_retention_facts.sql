-- 0021 kept the retention funnel's per-visitor facts by triggers for about an hour of commits (4efdcfa) before
-- they were taken out (1b279c3: they cost every first-time attendance record a statement trigger, 4-10x
-- slower roster posts). A database migrated in between still has them: drop them (no-op elsewhere).
drop trigger if exists retention_first_visits_insert on contact_first_visits;--> statement-breakpoint
drop trigger if exists retention_first_visits_update on contact_first_visits;--> statement-breakpoint
drop trigger if exists retention_first_visits_delete on contact_first_visits;--> statement-breakpoint
drop trigger if exists retention_memberships_insert on group_memberships;--> statement-breakpoint
drop trigger if exists retention_memberships_update on group_memberships;--> statement-breakpoint
drop trigger if exists retention_memberships_delete on group_memberships;--> statement-breakpoint
drop trigger if exists retention_occasions_insert on contact_occasions;--> statement-breakpoint
drop trigger if exists retention_occasions_update on contact_occasions;--> statement-breakpoint
drop trigger if exists retention_occasions_delete on contact_occasions;--> statement-breakpoint
drop trigger if exists retention_activity_contacts_insert on event_activity_contacts;--> statement-breakpoint
drop trigger if exists retention_activity_contacts_update on event_activity_contacts;--> statement-breakpoint
drop trigger if exists retention_activity_contacts_delete on event_activity_contacts;--> statement-breakpoint
drop trigger if exists retention_groups_update on groups;--> statement-breakpoint
drop trigger if exists retention_categories_update on group_categories;--> statement-breakpoint
drop trigger if exists retention_activities_update on event_activities;--> statement-breakpoint
drop function if exists retention_first_visits_track();--> statement-breakpoint
drop function if exists retention_contacts_track();--> statement-breakpoint
drop function if exists retention_kinds_track();--> statement-breakpoint
drop function if exists retention_visitors_sync(bigint, bigint[]);--> statement-breakpoint
drop function if exists retention_facts_refresh(bigint, bigint[]);--> statement-breakpoint
drop table if exists retention_visitors;
