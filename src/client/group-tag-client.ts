import type { GroupTagResponse, GroupTagsResponse } from './wire-types.js';
import type { SendRequest } from './data-source-client.js';

/** A group tag: a name the environment's customers may carry (`groupTags` of a Customer). */
export type GroupTag = GroupTagsResponse['group_tags'][number];

/**
 * Explo's Group Tag API (/api/group_tags/, …), as `client.groupTags`. Read-write keys write; read-only keys list.
 * Renaming or deleting a tag rewrites every customer carrying it, in one transaction.
 */
export class GroupTagClient {
  constructor(private readonly send: SendRequest) {}

  /** GET /api/group_tags/: the environment's tags, oldest first. */
  async list(): Promise<GroupTag[]> {
    return (await this.send<GroupTagsResponse>('GET', '/api/group_tags/')).group_tags;
  }

  /** POST /api/create_group_tag/: conflict when the environment has a tag of that name. */
  async create(name: string): Promise<GroupTag> {
    return (await this.send<GroupTagResponse>('POST', '/api/create_group_tag/', { name })).group_tag;
  }

  /** POST /api/rename_group_tag/: answers the tag under its new name; not_found for an unknown `name`, conflict when `newName` is taken. */
  async rename(name: string, newName: string): Promise<GroupTag> {
    return (await this.send<GroupTagResponse>('POST', '/api/rename_group_tag/', { name, new_name: newName })).group_tag;
  }

  /** POST /api/delete_group_tag/: takes it off every customer carrying it; not_found for an unknown tag. */
  async delete(name: string): Promise<void> {
    await this.send('POST', '/api/delete_group_tag/', { name });
  }
}
